import { readFileSync } from 'node:fs';

/**
 * Reads KEY=VALUE lines from a .env file into `env`, never overriding a variable
 * the process already has (the real environment wins). A missing file is fine.
 */
export function loadDotenv(path: string, env: NodeJS.ProcessEnv = process.env): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  for (const [key, value] of parseDotenv(text)) {
    if (env[key] === undefined) env[key] = value;
  }
}

export function parseDotenv(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    values.set(match[1]!, value);
  }
  return values;
}
