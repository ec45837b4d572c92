import { describe, expect, it } from 'vitest';
import { addressProblem, testSummary } from './sandboxhost';

describe('sandbox host address', () => {
  it('takes this machine (empty) and team hosts', () => {
    expect(addressProblem('')).toBe('');
    expect(addressProblem('ssh://alice@gpu-box/run/user/1000/podman/podman.sock')).toBe('');
    expect(addressProblem(' ssh://root@10.0.0.7:2222/run/podman/podman.sock ')).toBe('');
  });
  it('says what is wrong in words', () => {
    expect(addressProblem('http://gpu-box/podman.sock')).toMatch(/ssh:\/\/user@host/);
    expect(addressProblem('ssh://alice@gpu-box')).toMatch(/socket’s path/);
    expect(addressProblem('ssh://alice@gpu-box:99999/x.sock')).toMatch(/not a port/);
  });
});

describe('connection test summary', () => {
  it('names the host, Podman, the mode, cgroups and the image', () => {
    expect(testSummary({ ok: true, host: 'alice@gpu-box', podman_version: '4.3.1', rootless: true, cgroup_version: 'v2', image_present: false, duration_ms: 900 })).toBe(
      'Reached alice@gpu-box · Podman 4.3.1 · rootless · cgroup v2 · image not there yet',
    );
  });
  it('shows the error when it failed', () => {
    expect(testSummary({ ok: false, host: 'x', rootless: false, image_present: false, duration_ms: 1, error: 'cannot reach x' })).toBe('cannot reach x');
  });
});
