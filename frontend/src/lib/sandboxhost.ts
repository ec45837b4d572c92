// The Sandbox host of Settings in the user's words: what is wrong with an
// address as it is typed (the same rules rehome applies when it saves),
// and a connection test's findings in one line.
import type { core } from './gen/api.gen';

/** addressProblem says what is wrong with a team host's address, or '' when it reads (empty: this machine). */
export function addressProblem(uri: string): string {
  const u = uri.trim();
  if (u === '') return '';
  const m = /^ssh:\/\/(?:([^@/\s]+)@)?([^/:\s]+)(?::(\d+))?(\/\S*)?$/i.exec(u);
  if (!m) return 'Write it as ssh://user@host[:port]/path/to/podman.sock.';
  if (m[3] && (Number(m[3]) < 1 || Number(m[3]) > 65535)) return `${m[3]} is not a port.`;
  if (!m[4] || m[4] === '/') return 'Add the Podman socket’s path on that machine, such as /run/user/1000/podman/podman.sock.';
  return '';
}

/** testSummary is a connection test's findings in one line. */
export function testSummary(t: core.ConnectionTest): string {
  if (!t.ok) return t.error || 'The host could not be reached.';
  const parts = [
    `Reached ${t.host}`,
    t.podman_version ? `Podman ${t.podman_version}` : '',
    t.rootless ? 'rootless' : 'as root',
    t.cgroup_version ? `cgroup ${t.cgroup_version}` : '',
    t.image_present ? 'image ready' : 'image not there yet',
  ].filter(Boolean);
  return parts.join(' · ');
}
