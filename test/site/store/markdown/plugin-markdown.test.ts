// The site's Markdown images follow the plugin image rule: a description's image
// cannot make a viewer's browser call the site (regression: an image of
// /apps/auth/logout in a description would log out whoever opened the plugin).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { markdownTree, useImageLinkRule } from '../../../../src/services/site/store/markdown/plugin-markdown.js';
import { imageLinkRule } from '../../../../src/services/site/store/image-links.js';

const images = (source: string) => JSON.stringify(markdownTree(source)).match(/"img",\{"src":"[^"]*"/g) ?? [];

test('before the site tells its address, only images on other https hosts are kept', () => {
  assert.equal(images('![a](https://cdn.example/a.png) ![b](/static/b.png)'), ['"img",{"src":"https://cdn.example/a.png"']);
});

const cases = [
  { what: 'another https host', source: '![a](https://cdn.example/a.png)', kept: true },
  { what: 'the site’s static files', source: '![a](/static/site/a.png)', kept: true },
  { what: 'media on the site', source: '![a](/img/1/0cc175b9c0f1b6a831c399e269772661)', kept: true },
  { what: 'any other in-site path (regression: /uploads/ was text)', source: '![a](/uploads/s6.png)', kept: true },
  { what: '/apps/ in upper case', source: '![a](/APPS/auth/logout)', kept: false },
  { what: 'logout through a path', source: '![a](/apps/auth/logout)', kept: false },
  { what: 'logout through the site’s own address', source: '![a](https://store.example/apps/auth/logout)', kept: false },
  { what: 'the site’s own address, another port', source: '![a](https://store.example:8443/x.png)', kept: false },
  { what: 'a dot segment out of a file folder', source: '![a](/static/../apps/auth/logout)', kept: false },
  { what: 'an escaped slash', source: '![a](/static/..%2fapps/auth/logout)', kept: false },
  { what: 'http', source: '![a](http://cdn.example/a.png)', kept: false },
];

for (const c of cases) {
  test(`image from ${c.what}: ${c.kept ? 'kept' : 'text'}`, () => {
    useImageLinkRule(imageLinkRule({ publicUrl: 'https://store.example', imageHostPublicUrl: 'https://img.example' }));
    assert.is(images(c.source).length, c.kept ? 1 : 0, JSON.stringify(markdownTree(c.source)));
  });
}

test.run();
