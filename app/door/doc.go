// Package door lets a terminal command run beside the window: the process
// that holds a data folder (the window or `rehome serve`) listens on an
// owner-only unix socket in the user's runtime folder, and `rehome`
// commands started in a terminal become its clients instead of failing on
// the database's lock.
//
// The client sends its command line, working folder, the environment
// variables rehome reads and whether its streams are terminals; the holder
// runs the same command with streams that cross the socket: stdout and
// stderr as they are written, stdin as the command reads it (pulled, so a
// command that never reads never takes the user's typing), a secret typed
// without echo, and a cancel when the user presses Ctrl-C or the client
// goes away. The exit code comes back last.
//
// Only a process of the same user may connect: the socket's folder is 0700,
// the socket 0600, and each side checks the other's uid (SO_PEERCRED). The
// socket never touches the network.
package door
