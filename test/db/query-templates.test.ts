// Query templates (src/db/query-templates.ts): one SQL text for named queries that
// differ only in an identifier. Only the identifiers written in the template's own
// "-- expand" lines can be put in, and every slot must be filled.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadQueries } from '../../src/db/queries.js';
import { expandTemplate } from '../../src/db/query-templates.js';

const BODY = 'select p.id from plugins p where p.status = $1 order by p.{{column}} desc';

test('a template makes one query per expand line, with that line\'s identifiers', () => {
  const made = expandTemplate('t.template.sql', [
    '-- expand by-a: column=a_col',
    '-- expand by-b: column=b_col',
    '-- why there are two',
    '',
    BODY,
  ].join('\n'));
  assert.equal([...made.keys()], ['by-a', 'by-b']);
  assert.is(made.get('by-a'), 'select p.id from plugins p where p.status = $1 order by p.a_col desc');
  assert.is(made.get('by-b'), 'select p.id from plugins p where p.status = $1 order by p.b_col desc');
});

const refused: Array<{ what: string; header: string[]; body?: string; message: RegExp }> = [
  { what: 'no expand line', header: ['-- just a comment'], message: /no "-- expand" line/ },
  { what: 'a value that is not an identifier', header: ['-- expand x: column=a;drop'], message: /is not "-- expand/ },
  { what: 'an upper-case value', header: ['-- expand x: column=A'], message: /not a lower-case identifier/ },
  { what: 'a slot left without a value', header: ['-- expand x: other=a'], message: /no value for \{\{column\}\}/ },
  { what: 'a value for no slot', header: ['-- expand x: column=a other=b'], message: /other is not used/ },
  { what: 'a slot given twice', header: ['-- expand x: column=a column=b'], message: /given twice/ },
  { what: 'a name made twice', header: ['-- expand x: column=a', '-- expand x: column=b'], message: /expanded twice/ },
  { what: 'a malformed expand line', header: ['-- expand X column=a'], message: /is not "-- expand/ },
  { what: 'no blank line before the query', header: [], body: '-- expand x: column=a\n' + BODY, message: /comment block, a blank line/ },
];

for (const { what, header, body, message } of refused) {
  test(`a template with ${what} is refused at load time`, () => {
    const text = body ?? [...header, '', BODY].join('\n');
    assert.throws(() => expandTemplate('t.template.sql', text), (error: Error) => message.test(error.message) && error.message.startsWith('t.template.sql: '));
  });
}

test('the store lists are three named queries from one source, each ordered by its column', () => {
  const queries = loadQueries();
  const orders = { updated: 'updated_at', rating: 'rating_score', installs: 'install_count' };
  for (const [sort, column] of Object.entries(orders)) {
    const text = queries.get(`store/list-${sort}`);
    assert.ok(text, `store/list-${sort}`);
    assert.not.match(text!, /\{\{|\}\}/);
    assert.ok(text!.includes(`order by p.${column} desc, p.id`), `${sort} orders by ${column}`);
    assert.ok(text!.includes(`plugins_status_${sort}`), `${sort} names its index`);
    // Parameters stay bound: the same eight $n in each.
    assert.equal([...new Set(text!.match(/\$\d+/g))].sort(), ['$1', '$2', '$3', '$4', '$5', '$6', '$7', '$8']);
    assert.ok(text!.startsWith('-- A page of plugins by'), 'the query\'s own comment comes first (EXPLAIN titles use it)');
  }
  assert.not.ok(queries.has('store/list'), 'the template itself is no query');
});

test.run();
