// Settings → MCP's pure logic: reading the command line and the variables
// the user types, naming a server, and saying a server's state and a
// tool's confirmation in the user's words.
import type * as api from './gen/api.gen';

/** A server's name: what `rehome mcp add` takes (it starts the tools' names). */
export const NAME = /^[a-z0-9][a-z0-9-]{0,23}$/;

/**
 * Splits a command line as a shell would for a simple command: words
 * apart on blanks, '…' taken as it is, "…" with \" and \\ inside, a
 * backslash escaping the next character outside quotes. Nothing is
 * expanded ($VAR, ~, globs): rehome runs the program itself, with no shell.
 */
export function splitCommand(line: string): { words: string[]; error: string } {
  const words: string[] = [];
  let cur = '';
  let has = false;
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = '';
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = '';
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) cur += line[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) words.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
    }
  }
  if (quote) return { words: [], error: `a ${quote === '"' ? 'double' : 'single'} quote is not closed` };
  if (has || cur) words.push(cur);
  return { words, error: '' };
}

/** Writes words back as one line a person can read (and splitCommand reads again). */
export function joinCommand(words: string[]): string {
  return words.map((w) => (w === '' ? "''" : /[^\w@%+=:,./-]/.test(w) ? `'${w.replace(/'/g, `'\\''`)}'` : w)).join(' ');
}

/** Reads KEY=VALUE lines (blank lines and # comments left out). */
export function parseEnv(text: string): { env: string[]; problems: string[] } {
  const env: string[] = [];
  const problems: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    if (eq < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      problems.push(`“${line.length > 40 ? line.slice(0, 40) + '…' : line}”: write KEY=VALUE`);
      continue;
    }
    env.push(key + '=' + line.slice(eq + 1));
  }
  return { env, problems };
}

/**
 * A name for a server from its command or URL, as the user would say it:
 * npx -y @modelcontextprotocol/server-everything → everything,
 * uvx mcp-server-fetch → fetch, http://127.0.0.1:3001/mcp → 127-0-0-1.
 */
export function suggestName(words: string[], url = ''): string {
  let base = '';
  if (url) {
    try {
      base = new URL(url).hostname;
    } catch {
      return '';
    }
  } else {
    const args = words.filter((w) => w && !w.startsWith('-'));
    const runners = new Set(['npx', 'uvx', 'node', 'python', 'python3', 'bunx', 'pnpm', 'deno', 'docker', 'run', 'dlx', 'exec']);
    const pkg = args.find((w) => /[a-z]/i.test(w) && !runners.has(w.split('/').pop() ?? w)) ?? args[0] ?? '';
    // A path names the server by its folder when the file is a generic
    // one: …/server-everything/dist/index.js → server-everything.
    const generic = new Set(['index', 'main', 'server', 'cli', 'dist', 'build', 'src', 'lib', 'bin', 'out', 'app']);
    const parts = pkg.startsWith('@') ? [pkg.split('/').pop() ?? ''] : pkg.split('/').filter(Boolean);
    const strip = (p: string) => p.replace(/@[^@]*$/, '').replace(/\.(js|mjs|cjs|py|ts)$/i, '');
    base = strip([...parts].reverse().find((p) => !generic.has(strip(p).toLowerCase())) ?? parts[parts.length - 1] ?? '');
    base = base.replace(/^(mcp-server-|server-|mcp-)/i, '').replace(/(-mcp-server|-mcp)$/i, '');
  }
  return base.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24).replace(/-+$/, '');
}

/** Why a new server cannot be added yet ('' when it can). */
export function draftProblem(d: { name: string; kind: 'stdio' | 'http'; command: string; url: string; env: string }): string {
  if (!NAME.test(d.name)) return 'Give it a name: 1–24 lower-case letters, digits and dashes (its tools are called name_tool).';
  if (d.kind === 'http') {
    try {
      const u = new URL(d.url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'The URL starts with http:// or https://.';
    } catch {
      return 'Type the server’s URL, e.g. http://127.0.0.1:3001/mcp.';
    }
    return '';
  }
  const { words, error } = splitCommand(d.command);
  if (error) return `The command: ${error}.`;
  if (!words.length) return 'Type the command that starts it, e.g. npx -y @modelcontextprotocol/server-everything.';
  const { problems } = parseEnv(d.env);
  if (problems.length) return `The variables: ${problems.join('; ')}.`;
  return '';
}

/** How a tool's calls are confirmed, by ChatGPT's rule on its annotations. */
export function ruleText(rule: string): string {
  switch (rule) {
    case 'none':
      return 'Runs without asking (read-only)';
    case 'every':
      return 'Asks every time (it can change or delete things)';
    default:
      return 'Asks first; “Always allow” can be kept';
  }
}

/** A server's state in words. */
export function stateText(v: api.core.MCPServerView, now = Date.now()): string {
  switch (v.state) {
    case 'off':
      return 'Off: its tools are not offered';
    case 'running':
      return v.kind === 'http' ? 'Connected' : 'Running';
    case 'failed':
      return 'Could not connect';
    case 'listed':
      return v.listed ? `Tools listed ${ago(Date.parse(v.listed), now)}` : 'Tools listed';
    default:
      return 'Not tested yet';
  }
}

/** How long ago t was, in plain words. */
export function ago(t: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (!Number.isFinite(s)) return '';
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

/** What starts the server or where it is, for the list. */
export function whatText(v: { command?: string[]; url?: string }): string {
  return v.url ? v.url : joinCommand(v.command ?? []);
}

/** "13 tools" / "1 tool" / "" when never listed. */
export function toolCount(v: api.core.MCPServerView): string {
  if (v.state === 'untested' || (v.state === 'failed' && !v.tools.length)) return '';
  return v.tools.length === 1 ? '1 tool' : `${v.tools.length} tools`;
}
