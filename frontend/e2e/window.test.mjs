// The real window: the built binary under Xvfb, a screenshot, and checks
// that the window shows the app (the UI reported itself ready, the picture
// is not a blank page, and no start-up error was logged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, artifacts } from './harness.mjs';

function runUnderXvfb(script, env, timeoutMs = 90000) {
  return new Promise((ok, fail) => {
    const p = spawn('xvfb-run', ['-a', '-s', '-screen 0 1280x860x24', 'bash', '-c', script], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      fail(new Error(`window test timed out; output:\n${out}`));
    }, timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(timer);
      code === 0 ? ok(out) : fail(new Error(`window script exited ${code}; output:\n${out}`));
    });
  });
}

test('the built app opens a window that shows the app', async () => {
  const home = mkdtempSync(join(tmpdir(), 'rehome-window-'));
  mkdirSync(artifacts, { recursive: true });
  const shot = join(artifacts, 'window-start.png');
  rmSync(shot, { force: true });
  const log = join(home, 'rehome.log');
  // Start the app, wait for the UI to say it rendered, then photograph.
  const script = `
    set -u
    "$REHOME_BIN" & pid=$!
    for i in $(seq 1 600); do
      grep -q '"ui ready"' "$REHOME_LOG" 2>/dev/null && break
      kill -0 $pid 2>/dev/null || { echo "rehome exited early"; exit 3; }
      sleep 0.1
    done
    grep -q '"ui ready"' "$REHOME_LOG" || { echo "the UI never reported ready"; kill $pid; exit 4; }
    sleep 1
    import -window root "$SHOT"
    xdotool search --name '^rehome$' >/dev/null || { echo "no window titled rehome"; exit 5; }
    kill $pid; wait $pid 2>/dev/null
    exit 0`;
  const env = { ...process.env, REHOME_HOME: home, REHOME_BIN: bin, REHOME_LOG: log, SHOT: shot };
  await runUnderXvfb(script, env);
  assert.ok(existsSync(shot), 'no screenshot was written');
  // A blank or white page has a handful of colours; the app has many.
  const colours = Number(execFileSync('convert', [shot, '-format', '%k', 'info:']).toString());
  assert.ok(colours > 50, `the window looks blank (${colours} colours)`);
  const logText = readFileSync(log, 'utf8');
  assert.match(logText, /"ui ready","screen":"assistants"/);
  assert.doesNotMatch(logText, /"level":"ERROR"/, 'the app logged an error while starting');
  rmSync(home, { recursive: true, force: true });
});
