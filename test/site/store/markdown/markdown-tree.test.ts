// Markdown as the pages get it: a tree of allowed tags and attributes, never HTML.
// The corpus holds the Markdown XSS vectors that public lists collect; whatever the
// source, the tree holds no tag, attribute or URL outside the allowed ones.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMarkdown, LINK_REL, type MarkdownNode } from '../../../../src/services/site/store/markdown/markdown-tree.js';

const markdownTree = createMarkdown({
  imageSource: (src) => (/^\/media\/[\w.-]+$/.test(src) ? src : src.startsWith('https://site.example/') ? null : /^https:\/\/[^@]+$/.test(src) ? src : null),
});

const ALLOWED: Record<string, string[]> = {
  p: [], ul: [], ol: ['start'], li: [], blockquote: [], table: [], thead: [], tbody: [], tr: [], th: ['class'], td: ['class'],
  hr: [], br: [], h2: [], h3: [], h4: [], h5: [], h6: [], em: [], strong: [], s: [], code: [], pre: [],
  a: ['href', 'rel', 'target'], img: ['src', 'alt', 'title', 'loading', 'referrerPolicy'],
};

/** Every element of the tree, depth first. */
function* elements(nodes: MarkdownNode[]): Generator<[string, Record<string, string>, ...MarkdownNode[]]> {
  for (const node of nodes) {
    if (typeof node === 'string') continue;
    yield node;
    yield* elements(node.slice(2) as MarkdownNode[]);
  }
}

function assertSafe(nodes: MarkdownNode[], what: string): void {
  for (const [tag, attrs] of elements(nodes)) {
    assert.ok(tag in ALLOWED, `${what}: tag ${tag}`);
    for (const [name, value] of Object.entries(attrs)) {
      assert.ok(ALLOWED[tag]!.includes(name), `${what}: ${tag}[${name}]`);
      assert.type(value, 'string', `${what}: ${tag}[${name}] is a string`);
    }
    if (tag === 'a') {
      assert.ok(new URL(attrs.href!).protocol === 'https:', `${what}: link ${attrs.href}`);
      assert.is(attrs.rel, LINK_REL);
    }
    if (tag === 'img') {
      assert.ok(attrs.src!.startsWith('https://') || /^\/media\/[\w.-]+$/.test(attrs.src!), `${what}: image ${attrs.src}`);
      assert.not.ok(attrs.src!.startsWith('https://site.example/'), `${what}: image on the site ${attrs.src}`);
    }
    if (tag === 'th' || tag === 'td') assert.ok(attrs.class === undefined || /^align-(left|right|center)$/.test(attrs.class), what);
  }
}

const XSS: Array<{ what: string; source: string }> = [
  { what: 'javascript: link', source: '[a](javascript:alert(1))' },
  { what: 'mixed-case scheme', source: '[a](JaVaScRiPt:alert(1))' },
  { what: 'entity-encoded colon', source: '[a](javascript&#58;alert(1))' },
  { what: 'entity-encoded scheme', source: '[a](&#x6A;&#x61;vascript:alert(1))' },
  { what: 'leading spaces and tabs', source: '[a](  \tjavascript:alert(1))' },
  { what: 'angle-bracket destination', source: '[a](<javascript:alert(1)>)' },
  { what: 'autolink', source: '<javascript:alert(1)>' },
  { what: 'data: link', source: '[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)' },
  { what: 'vbscript: link', source: '[a](vbscript:msgbox(1))' },
  { what: 'file: link', source: '[a](file:///etc/passwd)' },
  { what: 'http: link (not https)', source: '[a](http://evil.example/)' },
  { what: 'protocol-relative link', source: '[a](//evil.example/x)' },
  { what: 'in-site path that is not media', source: '[logout](/apps/auth/logout) ![x](/apps/auth/logout)' },
  { what: "an image on the site's own host", source: '![x](https://site.example/apps/auth/logout)' },
  { what: 'reference-style javascript:', source: '[a][x]\n\n[x]: javascript:alert(1)' },
  { what: 'javascript: image', source: '![a](javascript:alert(1))' },
  { what: 'data: image', source: '![a](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)' },
  { what: 'attribute breakout in alt', source: '![a" onerror="alert(1)](https://i.example/x.png)' },
  { what: 'attribute breakout in title', source: '[a](https://a.example/ "x\\" onmouseover=\\"alert(1)")' },
  { what: 'quote in URL', source: '[a](https://a.example/"onclick="alert(1))' },
  { what: 'raw script', source: '<script>alert(1)</script>' },
  { what: 'raw img onerror', source: '<img src=x onerror=alert(1)>' },
  { what: 'raw anchor', source: '<a href="javascript:alert(1)">x</a>' },
  { what: 'raw iframe and svg', source: '<iframe src="https://evil.example"></iframe><svg onload=alert(1)>' },
  { what: 'html block', source: '<div>\n<style>body{display:none}</style>\n</div>' },
  { what: 'inline html in a table cell', source: '| a |\n|---|\n| <b onmouseover=alert(1)>x</b> |' },
  { what: 'nested emphasis with a link', source: '**[*x*](javascript:alert(1))**' },
  { what: 'newline in the destination', source: '[a](java\nscript:alert(1))' },
  { what: 'NUL and control characters', source: '[a](java\u0000script:alert(1)) [b](java\u0001script:x)' },
  { what: 'unicode-escaped scheme', source: '[a](\u006a\u0061vascript:alert(1))' },
  { what: 'credentials in an https link', source: '[a](https://user:pass@evil.example/)' },
  { what: 'code spans keep text', source: '`<script>alert(1)</script>` and\n\n```html\n<img src=x onerror=alert(1)>\n```' },
];

for (const c of XSS) {
  test(`safe: ${c.what}`, () => {
    const tree = markdownTree(c.source);
    assertSafe(tree, c.what);
    const json = JSON.stringify(tree);
    assert.not.match(json, /"(href|src)":"\s*(javascript|data|vbscript|file|http):/i, c.what);
    assert.not.match(json, /"on[a-z]+":/i, c.what);
  });
}

test('raw HTML stays text', () => {
  assert.equal(markdownTree('<b>hi</b>'), [['p', {}, '<b>hi</b>']]);
});

const rendered: Array<{ what: string; source: string; tree: MarkdownNode[] }> = [
  { what: 'headings move one level down', source: '# A\n## B\n###### F', tree: [['h2', {}, 'A'], ['h3', {}, 'B'], ['h6', {}, 'F']] },
  { what: 'emphasis, strong, strike, code', source: '*a* **b** ~~c~~ `d`', tree: [['p', {}, ['em', {}, 'a'], ' ', ['strong', {}, 'b'], ' ', ['s', {}, 'c'], ' ', ['code', {}, 'd']]] },
  { what: 'tight list', source: '- a\n- b', tree: [['ul', {}, ['li', {}, 'a'], ['li', {}, 'b']]] },
  { what: 'ordered list with a start', source: '3. a\n4. b', tree: [['ol', { start: '3' }, ['li', {}, 'a'], ['li', {}, 'b']]] },
  { what: 'block quote', source: '> q', tree: [['blockquote', {}, ['p', {}, 'q']]] },
  { what: 'fenced code', source: '```\nx < y\n```', tree: [['pre', {}, ['code', {}, 'x < y\n']]] },
  {
    what: 'https link',
    source: '[site](https://example.com/a?b=1)',
    tree: [['p', {}, ['a', { href: 'https://example.com/a?b=1', rel: LINK_REL, target: '_blank' }, 'site']]],
  },
  {
    what: 'https and media images',
    source: '![a](https://i.example/a.png "T") ![b](/media/b.png)',
    tree: [['p', {}, ['img', { src: 'https://i.example/a.png', alt: 'a', loading: 'lazy', referrerPolicy: 'no-referrer', title: 'T' }], ' ', ['img', { src: '/media/b.png', alt: 'b', loading: 'lazy', referrerPolicy: 'no-referrer' }]]],
  },
  {
    what: 'table with alignment as classes',
    source: '| a | b |\n|:-:|--:|\n| 1 | 2 |',
    tree: [['table', {}, ['thead', {}, ['tr', {}, ['th', { class: 'align-center' }, 'a'], ['th', { class: 'align-right' }, 'b']]], ['tbody', {}, ['tr', {}, ['td', { class: 'align-center' }, '1'], ['td', { class: 'align-right' }, '2']]]]],
  },
  {
    what: 'bare https links are links, other bare links text',
    source: 'see https://example.com/ok, http://x.example and example.org',
    tree: [['p', {}, 'see ', ['a', { href: 'https://example.com/ok', rel: LINK_REL, target: '_blank' }, 'https://example.com/ok'], ', http://x.example and example.org']],
  },
  { what: 'a refused link keeps its text', source: '[click](javascript:x)', tree: [['p', {}, '[click](javascript:x)']] },
  { what: 'hard break and rule', source: 'a  \nb\n\n---', tree: [['p', {}, 'a', ['br', {}], 'b'], ['hr', {}]] },
];

for (const c of rendered) {
  test(`renders: ${c.what}`, () => {
    assert.equal(markdownTree(c.source), c.tree);
  });
}

test('a long document renders within its bounds', () => {
  const source = '- '.repeat(5000) + 'x\n' + '> '.repeat(5000) + 'y\n' + '*'.repeat(10_000);
  const tree = markdownTree(source.slice(0, 20_000));
  assertSafe(tree, 'nesting');
});

test.run();
