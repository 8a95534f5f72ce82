import { isObject, own } from '../../../../../lib/json-object.js';
import { pythonStrip } from './python-strip.js';
import { truthy } from './python-truth.js';

// Permissions as the Bloret launcher grants them (BloretCrew/Bloret-Launcher,
// modules/plugin_host/permissions.py and modules/plugin_host/manifest.py): on
// install it grants every permission the manifest declares, high-risk ones
// included; a manifest that declares none gets the ones its `contributes` and
// `hooks` imply.

export type Risk = 'safe' | 'high';

export interface Permission {
  id: string;
  risk: Risk;
}

/**
 * The permissions the launcher grants without asking (its DEFAULT_SAFE_PERMISSIONS);
 * every other id is high-risk, unknown ones included (permission_risk: "unknown
 * permissions are shown as high risk").
 */
const SAFE = new Set(['ui.nav', 'ui.theme', 'ui.settings', 'ui.toolbar', 'ui.home', 'ui.tools', 'config.read']);

export function riskOf(id: string): Risk {
  return SAFE.has(id) ? 'safe' : 'high';
}

export const withRisk = (ids: readonly string[]): Permission[] => ids.map((id) => ({ id, risk: riskOf(id) }));

/** What a manifest's `permissions` declares, or why the launcher could not read it. */
export type Declared = { ids: string[] } | { problem: string };

/**
 * normalize_permissions: nothing (or any falsy value) declares none; one string
 * is a list of one; the strings of a list (or the keys of an object: Python
 * iterates a dict's keys) are trimmed, empty ones and duplicates dropped, order
 * kept. Anything else the launcher fails on while loading the plugin.
 */
export function declaredPermissions(raw: unknown): Declared {
  if (!truthy(raw)) return { ids: [] };
  let items: unknown[];
  if (typeof raw === 'string') items = [raw];
  else if (Array.isArray(raw)) items = raw;
  else if (isObject(raw)) items = Object.keys(raw);
  else return { problem: 'permissions must be a list of permission ids' };
  const ids: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') continue;
    const id = pythonStrip(item);
    if (id !== '' && !ids.includes(id)) ids.push(id);
  }
  return { ids };
}

/** The contributions that imply a UI permission each (manifest.py's inference). */
const UI_CONTRIBUTIONS = ['nav', 'theme', 'settings', 'toolbar', 'home', 'tools'] as const;

/**
 * The permissions the launcher infers when none are declared, sorted as it sorts
 * them: each UI contribution its ui.* permission; agent_tools or prompts give
 * agent.bloriko and/or agent.blrpe (an agent_tools object by its keys, anything
 * else agent.bloriko); web_routes gives web.routes; a hook named launch.* gives
 * launch.hooks, download.* download.hooks. `contributes` and `hooks` count only
 * as objects.
 */
export function inferredPermissions(manifest: Record<string, unknown>): string[] {
  const contributes = isObject(own(manifest, 'contributes')) ? (own(manifest, 'contributes') as Record<string, unknown>) : {};
  const hooks = isObject(own(manifest, 'hooks')) ? (own(manifest, 'hooks') as Record<string, unknown>) : {};
  const inferred = new Set<string>();
  for (const kind of UI_CONTRIBUTIONS) if (truthy(own(contributes, kind))) inferred.add(`ui.${kind}`);
  const agentTools = own(contributes, 'agent_tools');
  if (truthy(agentTools) || truthy(own(contributes, 'prompts'))) {
    // `agent_tools or {}`: prompts alone leave an empty object, which adds nothing.
    const tools = truthy(agentTools) ? agentTools : {};
    if (isObject(tools)) {
      if (truthy(own(tools, 'bloriko'))) inferred.add('agent.bloriko');
      if (truthy(own(tools, 'blrpe'))) inferred.add('agent.blrpe');
    } else {
      inferred.add('agent.bloriko');
    }
  }
  if (truthy(own(contributes, 'web_routes'))) inferred.add('web.routes');
  for (const hook of Object.keys(hooks)) {
    if (hook.startsWith('launch.')) inferred.add('launch.hooks');
    if (hook.startsWith('download.')) inferred.add('download.hooks');
  }
  // Python's sorted(): by code point, which for these ASCII ids is the default sort.
  return [...inferred].sort();
}
