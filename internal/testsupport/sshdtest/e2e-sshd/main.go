package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"rehome/internal/testsupport/sshdtest"
	"rehome/sandbox/link"
)

func main() {
	conn, err := link.Open(context.Background(), link.ConnectOptions{ForceStart: true, Runtime: "runc"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-sshd: a Podman service:", err)
		os.Exit(1)
	}
	defer conn.Close()
	srv, err := sshdtest.New(sshdtest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-sshd:", err)
		os.Exit(1)
	}
	defer srv.Close()
	sock := strings.TrimPrefix(conn.URI, "unix://")
	json.NewEncoder(os.Stdout).Encode(map[string]string{
		"uri": srv.URI(sock), "identity": srv.ClientKey, "fingerprint": srv.Fingerprint, "known_hosts_line": srv.HostKeyLine,
	})
	io.Copy(io.Discard, os.Stdin)
}
