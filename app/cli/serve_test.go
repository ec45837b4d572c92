package cli

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestServeAllAddresses: `serve --addr 0.0.0.0:0` prints a URL for each
// address of this machine (loopback first) and every one of them works,
// with the token; a foreign Host is still refused.
func TestServeAllAddresses(t *testing.T) {
	cmd := exec.Command(rehomeBin, "serve", "--addr", "0.0.0.0:0")
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var urls []string
	timeout := time.After(20 * time.Second)
collect:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break collect
			}
			urls = append(urls, l)
		case <-time.After(500 * time.Millisecond):
			if len(urls) > 0 {
				break collect
			}
		case <-timeout:
			t.Fatal("rehome serve printed no URL")
		}
	}
	if len(urls) < 2 || !strings.HasPrefix(urls[0], "http://127.0.0.1:") {
		t.Fatalf("URLs printed: %q (want loopback first, then this machine's addresses)", urls)
	}
	for _, u := range urls {
		if strings.Contains(u, "[::]") || strings.Contains(u, "0.0.0.0") {
			t.Fatalf("printed an address no browser can open: %s", u)
		}
	}
	call := func(base, token, host string) int {
		req, _ := http.NewRequest("POST", base+"/api/call/Status", strings.NewReader("[]"))
		req.Header.Set("X-Rehome-Token", token)
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	var token string
	for _, line := range urls {
		u, err := url.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		token = u.Query().Get("token")
		base := "http://" + u.Host
		if u.Hostname() != "127.0.0.1" && !strings.Contains(u.Hostname(), ":") && !strings.ContainsAny(u.Hostname()[:1], "0123456789") {
			// The hostname: reach it over loopback with its Host header.
			if code := call(urls[0][:strings.Index(urls[0], "/?")], token, u.Host); code != 200 {
				t.Errorf("Host %s: HTTP %d", u.Host, code)
			}
			continue
		}
		if code := call(base, token, ""); code != 200 {
			t.Errorf("%s: HTTP %d", base, code)
		}
	}
	loop := urls[0][:strings.Index(urls[0], "/?")]
	if code := call(loop, token, "evil.example:80"); code != http.StatusForbidden {
		t.Errorf("foreign Host: HTTP %d", code)
	}
	if code := call(loop, "wrong", ""); code != http.StatusUnauthorized {
		t.Errorf("wrong token on 0.0.0.0: HTTP %d", code)
	}
}
