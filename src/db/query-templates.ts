// A query template is one SQL text for named queries that differ only in an
// identifier (the store lists differ only in their sort column). Its leading
// comment block lists what it makes, one line each:
//
//   -- expand list-updated: sort=updated column=updated_at
//
// and the text after the first blank line is the query, with {{sort}} and
// {{column}} where those values go. Expansion happens once, at load time; only
// the values written in those lines can ever be put in, each must be a plain
// identifier, and every parameter stays a bound $n.

const EXPAND_LINE = /^-- expand ([a-z0-9][a-z0-9-]*):((?: [a-z]+=[A-Za-z0-9_]+)+)\s*$/;
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const SLOT = /\{\{([a-z]+)\}\}/g;

export const TEMPLATE_SUFFIX = '.template.sql';

/** The queries a template makes, by name relative to its folder ("list-updated"). */
export function expandTemplate(file: string, text: string): Map<string, string> {
  const fail = (why: string) => new Error(`${file}: ${why}`);
  const split = /\r?\n\s*\r?\n/.exec(text);
  if (!split) throw fail('a template is a comment block, a blank line, then the query');
  const header = text.slice(0, split.index).split(/\r?\n/);
  const body = text.slice(split.index + split[0].length);
  const used = new Set([...body.matchAll(SLOT)].map((match) => match[1]!));
  const made = new Map<string, string>();
  for (const line of header) {
    if (!line.startsWith('-- expand')) continue;
    const match = EXPAND_LINE.exec(line);
    if (!match) throw fail(`"${line}" is not "-- expand <name>: slot=identifier ..."`);
    const [, name, pairs] = match;
    const values = new Map<string, string>();
    for (const pair of pairs!.trim().split(' ')) {
      const [slot, value] = pair.split('=') as [string, string];
      if (!IDENTIFIER.test(value)) throw fail(`${name}: ${slot}=${value} is not a lower-case identifier`);
      if (values.has(slot)) throw fail(`${name}: ${slot} is given twice`);
      values.set(slot, value);
    }
    for (const slot of used) if (!values.has(slot)) throw fail(`${name}: no value for {{${slot}}}`);
    for (const slot of values.keys()) if (!used.has(slot)) throw fail(`${name}: ${slot} is not used by the query`);
    if (made.has(name!)) throw fail(`${name} is expanded twice`);
    made.set(name!, body.replace(SLOT, (_, slot: string) => values.get(slot)!));
  }
  if (made.size === 0) throw fail('no "-- expand" line: it would make no query');
  return made;
}
