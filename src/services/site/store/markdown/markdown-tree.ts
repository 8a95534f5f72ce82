import MarkdownIt from 'markdown-it';

// Authors write descriptions and changelogs in Markdown. The server reads it as
// CommonMark (with tables and strikethrough) and hands pages a tree of plain data,
// never HTML: `[tag, {attributes}, ...children]`, children being strings or trees
// (JsonML). The pages build elements from it one by one, so nothing an author writes
// is ever parsed as HTML by a browser, and the tree can only hold the tags and
// attributes listed here:
//
// - raw HTML in the source stays text (markdown-it's html: false);
// - links must be https: URLs; images whatever `imageSource` accepts (the site uses
//   its plugin image rule: https: on another host, or its file-only folders);
//   anything else is dropped to its text;
// - links carry rel="nofollow ugc noopener" and open elsewhere.

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

export type MarkdownNode = string | [string, Record<string, string>, ...MarkdownNode[]];

/** Headings move one level down: the page's own <h1> is the plugin's name. */
const HEADING_SHIFT = 1;
export const LINK_REL = 'nofollow ugc noopener';

const BLOCK_TAGS = new Set(['p', 'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const INLINE_TAGS = new Set(['em', 'strong', 's', 'a']);

export interface MarkdownOptions {
  /** The image link to keep for `src`, or null to show its text: by default https: URLs only. */
  imageSource?: (src: string) => string | null;
}

function httpsOnly(href: string): string | null {
  try {
    const url = new URL(href);
    return url.protocol === 'https:' && url.username === '' && url.password === '' ? url.href : null;
  } catch {
    return null;
  }
}

export function createMarkdown(options: MarkdownOptions = {}) {
  const md = new MarkdownIt('commonmark', { html: false, linkify: true, typographer: false }).enable(['table', 'strikethrough', 'linkify']);
  // Bare links are made clickable only when written with their scheme (as GitHub
  // does): "example.com" stays text. validateLink then keeps https: ones only.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  // Links that fail our rule are dropped by markdown-it to their text.
  const imageSource = options.imageSource ?? httpsOnly;
  // markdown-it drops a link or image that fails this to its text; images are
  // checked again (imageSource) where the token is read, links by httpsOnly.
  md.validateLink = (url: string) => httpsOnly(url) !== null || imageSource(url) !== null;

  function inline(tokens: Token[]): MarkdownNode[] {
    const root: MarkdownNode[] = [];
    const stack: MarkdownNode[][] = [root];
    const top = () => stack[stack.length - 1]!;
    for (const token of tokens) {
      switch (token.type) {
        case 'text':
          if (token.content !== '') pushText(top(), token.content);
          break;
        case 'code_inline':
          top().push(['code', {}, token.content]);
          break;
        case 'softbreak':
          pushText(top(), '\n');
          break;
        case 'hardbreak':
          top().push(['br', {}]);
          break;
        case 'image': {
          const src = imageSource(String(token.attrGet('src') ?? ''));
          const alt = token.children ? plainText(token.children) : token.content;
          if (src === null) {
            pushText(top(), alt);
            break;
          }
          const attrs: Record<string, string> = { src, alt, loading: 'lazy', referrerPolicy: 'no-referrer' };
          const title = String(token.attrGet('title') ?? '');
          if (title) attrs.title = title;
          top().push(['img', attrs]);
          break;
        }
        default: {
          if (token.nesting === 1 && INLINE_TAGS.has(token.tag)) {
            const attrs: Record<string, string> = {};
            if (token.tag === 'a') {
              // validateLink ran already; the parsed form is what is kept.
              const href = httpsOnly(String(token.attrGet('href') ?? ''));
              if (href === null) {
                // An image path (allowed for images only) used as a link target: its text only.
                stack.push(top());
                break;
              }
              Object.assign(attrs, { href, rel: LINK_REL, target: '_blank' });
            }
            const node: MarkdownNode = [token.tag, attrs];
            top().push(node);
            stack.push(node as unknown as MarkdownNode[]);
          } else if (token.nesting === -1 && INLINE_TAGS.has(token.tag) && stack.length > 1) {
            stack.pop();
          }
          // Anything else (html_inline cannot occur with html: false) is dropped.
        }
      }
    }
    return root;
  }

  /** The tree of `source`: a list of block nodes. */
  return function markdownTree(source: string): MarkdownNode[] {
    const tokens = md.parse(source, {});
    const root: MarkdownNode[] = [];
    const stack: MarkdownNode[][] = [root];
    const top = () => stack[stack.length - 1]!;
    for (const token of tokens) {
      if (token.type === 'inline') {
        top().push(...inline(token.children ?? []));
      } else if (token.type === 'fence' || token.type === 'code_block') {
        top().push(['pre', {}, ['code', {}, token.content]]);
      } else if (token.type === 'hr') {
        top().push(['hr', {}]);
      } else if (token.hidden) {
        // The paragraphs of a tight list: their text goes straight into the item.
        continue;
      } else if (token.nesting === 1 && BLOCK_TAGS.has(token.tag)) {
        const node: MarkdownNode = [blockTag(token.tag), blockAttributes(token)];
        top().push(node);
        stack.push(node as unknown as MarkdownNode[]);
      } else if (token.nesting === -1 && BLOCK_TAGS.has(token.tag) && stack.length > 1) {
        stack.pop();
      }
    }
    return root;
  };
}

function blockTag(tag: string): string {
  const level = /^h([1-6])$/.exec(tag)?.[1];
  return level ? `h${Math.min(6, Number(level) + HEADING_SHIFT)}` : tag;
}

function blockAttributes(token: Token): Record<string, string> {
  if (token.tag === 'ol') {
    const start = String(token.attrGet('start') ?? '');
    if (/^\d{1,9}$/.test(start)) return { start };
  }
  if (token.tag === 'th' || token.tag === 'td') {
    // markdown-it writes style="text-align:…"; the CSP allows no inline style, so a class.
    const align = /text-align:(left|right|center)/.exec(String(token.attrGet('style') ?? ''))?.[1];
    if (align) return { class: `align-${align}` };
  }
  return {};
}

function pushText(into: MarkdownNode[], text: string): void {
  const last = into.length - 1;
  if (last >= 0 && typeof into[last] === 'string') into[last] = (into[last] as string) + text;
  else into.push(text);
}

function plainText(tokens: Token[]): string {
  return tokens.map((token) => (token.children ? plainText(token.children) : token.type === 'text' || token.type === 'code_inline' ? token.content : '')).join('');
}
