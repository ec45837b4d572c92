package llamarun

import (
	"net"
	"os/exec"
	"syscall"
	"time"
)

// The lifecycle every helper server rehome starts shares — llama-server
// here, kiwix-serve for browsing (backend/browse): a free loopback port,
// a process group of its own that dies with rehome, and a stop that
// asks before it kills.

// FreePort is a TCP port free on 127.0.0.1 now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Detach gives cmd a process group of its own (so Stop ends what it
// starts too) and kills it when rehome's process dies.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// StopGroup ends the process group led by pid: SIGTERM, then SIGKILL
// after grace; done is closed when the leader has been waited for.
func StopGroup(pid int, done <-chan struct{}, grace time.Duration) {
	select {
	case <-done:
		return
	default:
	}
	syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
}
