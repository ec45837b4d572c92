package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"rehome/app"
	"rehome/app/bridge"
)

func cmdServe(env *cliEnv, args []string) int {
	fs := env.flags("serve", "serve [--addr 127.0.0.1:0]")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (loopback by default; port 0 picks a free one)")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return env.usage("serve: --addr %q: %v (use host:port, e.g. 127.0.0.1:8080)", *addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(env.stderr, "rehome serve: warning: %s is reachable from other machines; anyone with the URL's token can use rehome\n", host)
	}
	// Ctrl-C or SIGTERM (main's context) ends serving: the App's own
	// context is cancelled with it, so its runs and answers end too.
	return serve(env.context(), env, *addr, nil)
}

// serve runs the browser face until ctx ends. ready, if set, receives the
// URL once the server listens.
func serve(ctx context.Context, env *cliEnv, addr string, ready func(url string)) int {
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return env.fail(fmt.Errorf("listen on %s: %w (pick another --addr port)", addr, err))
	}
	defer ln.Close()
	files, err := env.assets()
	if err != nil {
		return env.fail(err)
	}
	a := app.New(app.Config{DataDir: dir, Log: env.log})
	if err := a.Open(); err != nil {
		return env.fail(err)
	}
	// Close cancels what the App is doing (runs, answers, image loads)
	// when serve ends on Ctrl-C or SIGTERM.
	defer a.Close()
	// The terminal's commands run here while serve holds the data folder.
	if d, err := OpenDoor(a, DoorConfig{Holder: "rehome serve", Version: env.version, Assets: env.assets, Log: env.log}); err != nil {
		fmt.Fprintf(env.stderr, "rehome serve: warning: commands in a terminal cannot reach this data folder while serve runs: %v\n", err)
	} else {
		defer d.Close()
	}
	app.StartFirstRun(a.App) // loads a shipped sandbox image, with progress

	token := newToken()
	hostname, _ := os.Hostname()
	hosts, urls, err := bridge.ServeHosts(ln.Addr(), machineIPs(), hostname)
	if err != nil {
		return env.fail(err)
	}
	srv, limited := bridge.NewHTTPServer(bridge.NewServer(a.App, bridge.ServerOptions{Assets: files, Token: token, Hosts: hosts}), ln)
	// One URL a line, loopback first: each works in a browser (any other
	// Host is refused).
	for _, u := range urls {
		fmt.Fprintf(env.stdout, "%s/?token=%s\n", u, token)
	}
	if len(urls) > 1 {
		fmt.Fprintf(env.stderr, "rehome serve: listening on every address of this machine; open one of the %d URLs above (other machines use one that is not 127.0.0.1)\n", len(urls))
	}
	url := fmt.Sprintf("%s/?token=%s", urls[0], token)
	env.log.Info("serving", "addr", ln.Addr().String(), "hosts", hosts)
	if ready != nil {
		ready(url)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(limited) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return env.fail(err)
		}
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(shut)
		fmt.Fprintln(env.stderr, "rehome serve: stopped")
	}
	return exitOK
}

// machineIPs lists this machine's interface addresses, for a server
// listening on all of them.
func machineIPs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips
}

func newToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}
