import { describe, expect, it } from 'vitest';
import { draftProblem, joinCommand, parseEnv, ruleText, splitCommand, stateText, suggestName, toolCount } from './mcp';
import type * as api from './gen/api.gen';

describe('splitCommand', () => {
  it('splits on blanks as a shell does', () => {
    expect(splitCommand('  npx   -y @modelcontextprotocol/server-everything ').words).toEqual(['npx', '-y', '@modelcontextprotocol/server-everything']);
  });
  it('keeps quoted words whole, with escapes', () => {
    expect(splitCommand(`mcp-server-filesystem '/srv/my files' "a \\"b\\" c" d\\ e ''`).words).toEqual(['mcp-server-filesystem', '/srv/my files', 'a "b" c', 'd e', '']);
  });
  it('expands nothing', () => {
    expect(splitCommand('echo $HOME ~ *.txt').words).toEqual(['echo', '$HOME', '~', '*.txt']);
  });
  it('says an open quote', () => {
    expect(splitCommand(`node "server.js`).error).toMatch(/double quote is not closed/);
    expect(splitCommand(`node 'server.js`).error).toMatch(/single quote/);
  });
  it('reads back what joinCommand writes', () => {
    const words = ['node', '/srv/my files/index.js', "it's", '', '--port=3001', 'a"b'];
    expect(splitCommand(joinCommand(words)).words).toEqual(words);
    expect(joinCommand(['npx', '-y', '@modelcontextprotocol/server-everything'])).toBe('npx -y @modelcontextprotocol/server-everything');
  });
});

describe('parseEnv', () => {
  it('reads KEY=VALUE lines, values kept as typed', () => {
    expect(parseEnv('ROOT=/srv/shared\n\n# a note\nTOKEN=a=b c\n')).toEqual({ env: ['ROOT=/srv/shared', 'TOKEN=a=b c'], problems: [] });
  });
  it('names the lines it cannot read', () => {
    const r = parseEnv('JUSTAKEY\n1BAD=x\nGOOD=1');
    expect(r.env).toEqual(['GOOD=1']);
    expect(r.problems).toHaveLength(2);
    expect(r.problems[0]).toContain('JUSTAKEY');
  });
});

describe('suggestName', () => {
  it('names a server by its package', () => {
    expect(suggestName(['npx', '-y', '@modelcontextprotocol/server-everything'])).toBe('everything');
    expect(suggestName(['uvx', 'mcp-server-fetch'])).toBe('fetch');
    expect(suggestName(['npx', '-y', '@modelcontextprotocol/server-filesystem@2025.1.1', '/srv/shared'])).toBe('filesystem');
    expect(suggestName(['mcp-server-sqlite', '--db-path', 'notes.db'])).toBe('sqlite');
    expect(suggestName(['node', '/opt/tools/weather-mcp.js'])).toBe('weather');
    expect(suggestName(['node', '/x/node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'])).toBe('everything');
    expect(suggestName(['python3', 'server.py'])).toBe('server');
    expect(suggestName(['docker', 'run', '-i', '--rm', 'mcp/github'])).toBe('github');
  });
  it('names a URL by its host, within the 24 characters a name may have', () => {
    expect(suggestName([], 'http://127.0.0.1:3001/mcp')).toBe('127-0-0-1');
    expect(suggestName([], 'https://a-very-long-host-name-for-mcp.example.com/mcp').length).toBeLessThanOrEqual(24);
    expect(suggestName([], 'not a url')).toBe('');
  });
});

describe('draftProblem', () => {
  const ok = { name: 'everything', kind: 'stdio' as const, command: 'npx -y @modelcontextprotocol/server-everything', url: '', env: '' };
  it('passes a good draft', () => {
    expect(draftProblem(ok)).toBe('');
    expect(draftProblem({ ...ok, kind: 'http', url: 'http://127.0.0.1:3001/mcp' })).toBe('');
  });
  it('says what is missing', () => {
    expect(draftProblem({ ...ok, name: 'Everything!' })).toMatch(/name/);
    expect(draftProblem({ ...ok, command: ' ' })).toMatch(/command/);
    expect(draftProblem({ ...ok, command: 'node "x' })).toMatch(/quote/);
    expect(draftProblem({ ...ok, env: 'NOPE' })).toMatch(/variables/);
    expect(draftProblem({ ...ok, kind: 'http', url: 'ftp://x/y' })).toMatch(/http/);
    expect(draftProblem({ ...ok, kind: 'http', url: '127.0.0.1:3001' })).toMatch(/URL|http/);
  });
});

describe('words', () => {
  const view = (state: string, extra: Partial<api.core.MCPServerView> = {}): api.core.MCPServerView => ({
    name: 'e', kind: 'stdio', env_names: [], on: state !== 'off', state, tools: [], notes: [], ...extra,
  });
  it('says each state', () => {
    expect(stateText(view('off'))).toMatch(/^Off/);
    expect(stateText(view('running'))).toBe('Running');
    expect(stateText(view('running', { kind: 'http' }))).toBe('Connected');
    expect(stateText(view('failed'))).toBe('Could not connect');
    expect(stateText(view('untested'))).toBe('Not tested yet');
    expect(stateText(view('listed', { listed: '2026-01-01T10:00:00Z' }), Date.parse('2026-01-01T10:05:00Z'))).toBe('Tools listed 5 min ago');
  });
  it('counts tools only once listed', () => {
    expect(toolCount(view('untested'))).toBe('');
    expect(toolCount(view('listed', { tools: [{ name: 'echo', loop_name: 'e_echo', rule: 'none' as api.actions.Rule, description: '', always_allowed: false }] }))).toBe('1 tool');
  });
  it('says each confirmation rule', () => {
    expect(ruleText('none')).toMatch(/without asking/);
    expect(ruleText('ask')).toMatch(/Always allow/);
    expect(ruleText('every')).toMatch(/every time/);
  });
});
