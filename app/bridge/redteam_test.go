package bridge

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/app"
)

// TestRedTeamNewMethodsRefused: the methods bound this afternoon
// (KnowledgeAdd, KnowledgeCancel, KnowledgeRanking, PickKnowledgeFile,
// SignInAction) reached as another local page would — the cookie alone,
// a foreign or null Origin, same-site from another port, no token — are
// refused before they run; with the token, KnowledgeAdd still reads no
// host file the user did not give (a path outright, a path climbing out
// of uploads/, an upload that is a link to a host file).
func TestRedTeamNewMethodsRefused(t *testing.T) {
	a, srv, token := bridge(t)
	cookie := TokenCookie + "=" + token
	attacks := []map[string]string{
		{"Cookie": cookie, "Content-Type": "text/plain;charset=UTF-8", "Origin": "http://127.0.0.1:1"},
		{"Cookie": cookie, "Content-Type": "text/plain"},
		{TokenHeader: token, "Sec-Fetch-Site": "same-site"},
		{TokenHeader: token, "Origin": "null"},
		{TokenHeader: token, "Origin": "http://evil.example"},
		{},
	}
	calls := map[string]string{
		"KnowledgeAdd":      `["a1", ["/etc/passwd"]]`,
		"KnowledgeCancel":   `["a1"]`,
		"KnowledgeRanking":  `["a1"]`,
		"PickKnowledgeFile": `[]`,
		"SignInAction":      `["a1", "shop"]`,
	}
	for method, args := range calls {
		for i, hdr := range attacks {
			code, body := do(t, "POST", srv.URL+"/api/call/"+method, args, hdr)
			if code != http.StatusForbidden && code != http.StatusUnauthorized {
				t.Errorf("%s, attack %d: HTTP %d %s", method, i, code, body)
			}
		}
	}
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(secret, []byte("the user's secret key"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := filepath.Join(app.DataDir(a.App), app.UploadsDir, "0123")
	if err := os.MkdirAll(up, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(up, "notes.md")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	own := map[string]string{TokenHeader: token, "Sec-Fetch-Site": "same-origin", "Origin": srv.URL}
	for _, p := range []string{secret, filepath.Join(app.DataDir(a.App), app.UploadsDir, "..", "..", filepath.Base(filepath.Dir(secret)), "id_ed25519"), link} {
		code, body := do(t, "POST", srv.URL+"/api/call/KnowledgeAdd", `["a1", [`+jsonQuote(p)+`]]`, own)
		if !strings.Contains(body, "not a file you gave rehome") && !strings.Contains(body, "climbs out") || strings.Contains(body, "secret key") {
			t.Errorf("KnowledgeAdd %s with the token: %d %s", p, code, body)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(app.DataDir(a.App), "knowledge")); len(entries) != 0 {
		t.Errorf("the library took a copy: %d entries", len(entries))
	}
}

func jsonQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
