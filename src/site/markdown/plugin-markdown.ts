import { createMarkdown } from './markdown-tree.js';

// The site's Markdown: images may also be the site's own static files (a plugin's
// screenshots can live there); every other picture must be an https: URL.
const STATIC_IMAGE = /^\/static\/[A-Za-z0-9._~\/-]+$/;

export const markdownTree = createMarkdown({
  isAllowedImage: (src) => STATIC_IMAGE.test(src) && !src.split('/').includes('..'),
});
