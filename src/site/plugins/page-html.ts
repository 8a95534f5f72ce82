import type { PluginRow } from './records.js';
import { ratingAverage } from './records.js';

// The plugin page's HTML. Everything from a record goes through escapeHtml; links
// were checked at submission (https or an in-site path) and are escaped again
// here. No script and no inline style: the page CSP (script-src/style-src 'self')
// holds, and the install button is a plain link to the launcher's scheme.

export const PAGE_STYLESHEET = '/static/store/plugin.css';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${PAGE_STYLESHEET}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function pluginPage(row: PluginRow, installUrl: string | null): string {
  const e = escapeHtml;
  const master = row.author !== '' ? row.author : (row.submitter ?? '');
  const average = ratingAverage(row.rating_sum, row.rating_count);
  const parts: string[] = [];
  parts.push('<header class="plugin-head">');
  if (row.icon) parts.push(`<img class="plugin-icon" src="${e(row.icon)}" alt="" width="96" height="96">`);
  parts.push('<div>');
  parts.push(`<h1>${e(row.name)}</h1>`);
  parts.push(`<p class="plugin-meta">${e(row.version)}${master ? ` · ${e(master)}` : ''} · <code>${e(row.id)}</code></p>`);
  if (row.status !== 'approved') parts.push(`<p class="plugin-status">${e(row.status)}</p>`);
  parts.push(
    `<p class="plugin-stats">${row.rating_count > 0 ? `${average.toFixed(1)} ★ (${row.rating_count})` : 'No ratings yet'} · ${Number(row.install_count)} installs</p>`,
  );
  parts.push('</div></header>');
  parts.push('<nav class="plugin-actions">');
  if (installUrl) parts.push(`<a class="button" href="${e(installUrl)}">Install in the launcher</a>`);
  parts.push(`<a href="${e(row.download)}" rel="nofollow noopener noreferrer">Download ZIP</a>`);
  if (row.url) parts.push(`<a href="${e(row.url)}" rel="nofollow noopener noreferrer">Homepage</a>`);
  parts.push('</nav>');
  if (row.sha256) parts.push(`<p class="plugin-hash">SHA-256 <code>${e(row.sha256)}</code></p>`);
  if (row.tags.length > 0) {
    parts.push(`<ul class="plugin-tags">${row.tags.map((tag) => `<li>${e(tag)}</li>`).join('')}</ul>`);
  }
  if (row.description) parts.push(`<p class="plugin-description">${e(row.description)}</p>`);
  if (row.long_description) parts.push(`<div class="plugin-long">${e(row.long_description)}</div>`);
  const shots = (row.screenshots as Array<string | { url: string }>).map((shot) => (typeof shot === 'string' ? shot : shot.url));
  if (shots.length > 0) {
    parts.push(`<section class="plugin-shots">${shots.map((url) => `<img src="${e(url)}" alt="" loading="lazy">`).join('')}</section>`);
  }
  if (row.permissions.length > 0) {
    parts.push(`<h2>Permissions</h2><ul class="plugin-permissions">${row.permissions.map((p) => `<li>${e(p)}</li>`).join('')}</ul>`);
  }
  return layout(`${row.name} · Plugin store`, parts.join('\n'));
}

export function notFoundPage(): string {
  return layout('Plugin not found', '<h1>Plugin not found</h1>\n<p>It does not exist, or it is not published.</p>');
}
