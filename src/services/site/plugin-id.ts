// The plugin id rule, below the features: the store checks it before any query,
// and so do the features that take a plugin id (audit's filter, ratings, reports,
// stats), through store/visibility.ts or, where the plugin's visibility is not
// the question (the audit log's filter), here.

/** Plugin ids are 3-128 of [A-Za-z0-9._-]: anything else cannot exist, so no query is needed. */
export const PLUGIN_ID = /^[A-Za-z0-9._-]{3,128}$/;
