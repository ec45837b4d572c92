package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func gib(f float64) int64 { return int64(f * (1 << 30)) }

// gpu is a machine with vram GiB whose text model takes model GiB of it.
func gpu(vram, model float64) Facts {
	return Facts{VRAMBytes: gib(vram), RAMBytes: gib(32), TextModel: &Model{Name: "Test 7B", Tag: "test:7b", VRAMBytes: gib(model), Tools: true}}
}

func cpuOnly(ram, model float64) Facts {
	return Facts{VRAMBytes: 0, RAMBytes: gib(ram), TextModel: &Model{Name: "Test 7B", Tag: "test:7b", RAMBytes: gib(model), OnCPU: true, Tools: true}}
}

func noModel() Facts { return Facts{VRAMBytes: gib(1), RAMBytes: gib(2)} }

func with(f Facts, change func(*Facts)) Facts { change(&f); return f }

func airGapped(f *Facts)   { f.AirGapped = true }
func dataLocal(f *Facts)   { f.DataMustStayLocal = true }
func seesImages(f *Facts)  { f.TextModel.Vision = true }
func externalAPI(f *Facts) { f.ActionHosts = []string{"api.example.com"} }
func localAPI(f *Facts)    { f.ActionHosts = []string{} }
func unnamedAPI(f *Facts)  { f.ActionUnknownURL = true }
func oauth(f *Facts)       { f.ActionOAuth = true }
func noTools(f *Facts)     { f.TextModel.Tools = false }
func library(f *Facts) {
	f.Libraries = []string{"Wikipedia (English)"}
	f.ZIM = "Wikipedia (wikipedia_en_all_maxi_<date>.zim from library.kiwix.org)"
}
func engine(f *Facts) { f.Engine = "SearXNG at http://127.0.0.1:8888" }

// ruleCases covers every rule of the catalog and every capability's
// defaults, case by case; TestEveryRuleIsCovered keeps it complete.
var ruleCases = []struct {
	cap, name string
	facts     Facts
	cat       Category
	rule      string // "" for the defaults
	says      string // a phrase the reason must contain
}{
	{Instructions, "big model on GPU", gpu(24, 11), Ports, "", "system prompt word for word"},
	{Instructions, "nothing fits", noModel(), DoesNotPort, "no-text-model", "No text model fits this machine (1 GiB of VRAM, 2 GiB of RAM)"},
	{Instructions, "model on CPU", cpuOnly(16, 8), Ports, "cpu-only", "runs from system RAM on the CPU"},
	{Instructions, "small model", gpu(4, 3), Ports, "small-model", "(Test 7B) is small"},
	{Instructions, "5 GiB model is not small", gpu(8, 5), Ports, "", "word for word"},
	{ConversationStarters, "defaults", gpu(8, 6), Ports, "", "prompt suggestions"},
	{ConversationStarters, "nothing fits", noModel(), DoesNotPort, "no-text-model", "nothing to start a conversation with"},
	{Knowledge, "online", gpu(8, 6), Hosts, "", "rehome hosts file search"},
	{Knowledge, "air-gapped", with(gpu(8, 6), airGapped), Hosts, "air-gapped", "keyword search (BM25) run on this machine and fetch nothing"},
	{Knowledge, "nothing fits", noModel(), DoesNotPort, "no-text-model", "no model to read them"},
	{CodeInterpreter, "online, big model", gpu(24, 11), Hosts, "", "rehome provides that sandbox"},
	{CodeInterpreter, "small model", gpu(4, 3), Hosts, "small-model", "writes weak analysis code"},
	{CodeInterpreter, "small model wins over air-gapped", with(gpu(4, 3), airGapped), Hosts, "small-model", "weak analysis code"},
	{CodeInterpreter, "air-gapped", with(gpu(24, 11), airGapped), Hosts, "air-gapped", "no `pip install` at run time"},
	{CodeInterpreter, "nothing fits", noModel(), DoesNotPort, "no-text-model", "nothing would write the code"},
	{WebBrowsing, "online", gpu(8, 6), Rebuild, "", "search backend"},
	{WebBrowsing, "air-gapped", with(gpu(8, 6), airGapped), DoesNotPort, "air-gapped", "there is no web to browse"},
	{WebBrowsing, "air-gapped wins over data local", with(with(gpu(8, 6), airGapped), dataLocal), DoesNotPort, "air-gapped", "no web to browse"},
	{WebBrowsing, "data must stay local", with(gpu(8, 6), dataLocal), Rebuild, "data-stays-local", "sends query text"},
	{WebBrowsing, "nothing fits", noModel(), DoesNotPort, "no-text-model", "nothing would read the pages"},
	{WebBrowsing, "air-gapped with a library", with(with(gpu(8, 6), airGapped), library), Hosts, "air-gapped-library", "hosts browsing from the carried library (Wikipedia (English))"},
	{WebBrowsing, "air-gapped, no library: the ZIM to carry", with(with(gpu(8, 6), airGapped), func(f *Facts) { f.ZIM = "Stack Overflow (stackoverflow.com_en_all_<date>.zim from library.kiwix.org)" }), DoesNotPort, "air-gapped", "Carry Stack Overflow (stackoverflow.com_en_all_"},
	{WebBrowsing, "air-gapped, engine set: still off", with(with(gpu(8, 6), airGapped), engine), DoesNotPort, "air-gapped", "no Kiwix library is carried"},
	{WebBrowsing, "data local with a library", with(with(with(gpu(8, 6), dataLocal), library), engine), Hosts, "data-stays-local-library", "without anything leaving the machine"},
	{WebBrowsing, "online with a library", with(gpu(8, 6), library), Hosts, "library", "the web through no search engine"},
	{WebBrowsing, "online with a library and an engine", with(with(gpu(8, 6), library), engine), Hosts, "library", "the web through SearXNG at http://127.0.0.1:8888"},
	{WebBrowsing, "online with an engine", with(gpu(8, 6), engine), Hosts, "engine", "web_search asks SearXNG at http://127.0.0.1:8888"},
	{ImageGeneration, "room beside the text model", gpu(24, 11), Rebuild, "", "second model (SDXL class"},
	{ImageGeneration, "exactly 6 GiB left is enough", gpu(12, 6), Rebuild, "", "second model"},
	{ImageGeneration, "GPU too small", gpu(4, 3), DoesNotPort, "gpu-too-small", "this machine has 4 GiB in all"},
	{ImageGeneration, "no GPU at all", cpuOnly(32, 8), DoesNotPort, "gpu-too-small", "0 bytes in all"},
	{ImageGeneration, "no room beside, takes turns", gpu(8, 6), Rebuild, "take-turns", "only 2 GiB is left (of 8 GiB)"},
	{ImageGeneration, "nothing fits", noModel(), DoesNotPort, "no-text-model", "no chat to ask for images in"},
	{Actions, "online, outside API", with(gpu(8, 6), externalAPI), Hosts, "", "rehome calls it as ChatGPT did"},
	{Actions, "air-gapped, outside API", with(with(gpu(8, 6), externalAPI), airGapped), DoesNotPort, "air-gapped-external-api", "(api.example.com) and the machine is air-gapped"},
	{Actions, "air-gapped, unnamed server", with(with(gpu(8, 6), unnamedAPI), airGapped), DoesNotPort, "air-gapped-external-api", "(a server no schema names)"},
	{Actions, "air-gapped, API on the LAN", with(with(gpu(8, 6), localAPI), airGapped), Hosts, "", "rehome calls it as ChatGPT did"},
	{Actions, "data local, outside API", with(with(gpu(8, 6), externalAPI), dataLocal), DoesNotPort, "data-leaves-through-action", "off this machine (api.example.com)"},
	{Actions, "data local, API on the LAN", with(with(gpu(8, 6), localAPI), dataLocal), Hosts, "", "rehome calls it as ChatGPT did"},
	{Actions, "OAuth", with(with(gpu(8, 6), externalAPI), oauth), Hosts, "oauth", "the work left is the sign-in"},
	{Actions, "air-gapped wins over OAuth", with(with(with(gpu(8, 6), externalAPI), oauth), airGapped), DoesNotPort, "air-gapped-external-api", "air-gapped"},
	{Actions, "nothing fits", noModel(), DoesNotPort, "no-text-model", "nothing would decide when to call the API"},
	{Actions, "text model without tool calling", with(with(gpu(8, 6), externalAPI), noTools), Rebuild, "no-tool-calling", "Test 7B has no tool calling"},
	{Actions, "air-gapped wins over no tool calling", with(with(with(gpu(8, 6), externalAPI), noTools), airGapped), DoesNotPort, "air-gapped-external-api", "air-gapped"},
	{Memory, "defaults", gpu(8, 6), Hosts, "", "rehome does the same on this machine"},
	{Memory, "text model without tool calling", with(gpu(8, 6), noTools), Hosts, "no-tool-calls", "cannot save one itself"},
	{Memory, "nothing fits", noModel(), DoesNotPort, "no-text-model", "nothing to remember for"},
	{Voice, "defaults", with(gpu(8, 6), airGapped), Rebuild, "", "whisper.cpp"},
	{Voice, "nothing fits", noModel(), DoesNotPort, "no-text-model", "nothing to talk to"},
	{Vision, "room for a vision model", gpu(24, 11), Rebuild, "", "cannot see images"},
	{Vision, "text model reads images", with(gpu(24, 11), seesImages), Hosts, "text-model-sees", "reads images itself, and rehome sends them"},
	{Vision, "text model reads images on a small GPU", with(gpu(6, 4.5), seesImages), Hosts, "text-model-sees", "reads images itself"},
	{Vision, "no GPU, beside a model on the CPU", cpuOnly(32, 16), Rebuild, "cpu-only", "in system RAM, on the CPU"},
	{Vision, "a CPU model that reads images", with(cpuOnly(32, 16), seesImages), Hosts, "text-model-sees", "reads images itself"},
	{Vision, "no room beside, takes turns", gpu(8, 6), Rebuild, "take-turns", "only 2 GiB is left (of 8 GiB)"},
	{Vision, "exactly 3 GiB left is enough", gpu(8, 5), Rebuild, "", "cannot see images"},
	{Vision, "GPU too small even alone: on the CPU", gpu(2, 1.5), Rebuild, "gpu-too-small", "this GPU has 2 GiB in all"},
	{Vision, "nothing fits", noModel(), DoesNotPort, "no-text-model", "let alone one that reads images"},
	{Canvas, "defaults", gpu(8, 6), Hosts, "", "rehome hosts it in Ask"},
	{Canvas, "text model without tool calling", with(gpu(8, 6), noTools), Rebuild, "no-tool-calls", "cannot open or edit one"},
	{Canvas, "nothing fits", noModel(), DoesNotPort, "no-text-model", "nothing to edit with"},
	{FileUploads, "defaults", gpu(8, 6), Ports, "", "files dropped into a chat"},
	{FileUploads, "nothing fits", noModel(), DoesNotPort, "no-text-model", "to read the files"},
}

func TestRules(t *testing.T) {
	cat := DefaultCatalog()
	for _, c := range ruleCases {
		t.Run(c.cap+"/"+c.name, func(t *testing.T) {
			cp, ok := cat.Lookup(c.cap)
			if !ok {
				t.Fatalf("no catalog entry for %s", c.cap)
			}
			r := Evaluate(cp, c.facts)
			if r.Category != c.cat || r.Rule != c.rule {
				t.Fatalf("got %s by rule %q, want %s by rule %q (reason: %s)", r.Category, r.Rule, c.cat, c.rule, r.Reason)
			}
			if !strings.Contains(r.Reason, c.says) {
				t.Errorf("reason %q does not say %q", r.Reason, c.says)
			}
			if strings.ContainsAny(r.Reason+r.Replacement, "{}") {
				t.Errorf("placeholder left unfilled: %q / %q", r.Reason, r.Replacement)
			}
			if r.Label != c.cat.Label() {
				t.Errorf("label %q, want %q", r.Label, c.cat.Label())
			}
			if (c.rule == "") != (len(r.Because) == 0) {
				t.Errorf("because = %q for rule %q", r.Because, c.rule)
			}
		})
	}
}

func TestEveryRuleIsCovered(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range ruleCases {
		covered[c.cap+"/"+c.rule] = true
	}
	for _, cp := range DefaultCatalog().Capabilities {
		if !covered[cp.ID+"/"] {
			t.Errorf("%s: no test case for its defaults", cp.ID)
		}
		for _, r := range cp.Rules {
			if !covered[cp.ID+"/"+r.ID] {
				t.Errorf("%s: rule %s has no test case", cp.ID, r.ID)
			}
		}
	}
}

func TestCatalogHasEveryCapabilityOfTheIssue(t *testing.T) {
	// The ids the issue names, in its order.
	want := []string{"instructions", "conversation_starters", "knowledge", "code_interpreter", "web_browsing",
		"image_generation", "actions", "memory", "voice", "vision", "canvas", "file_uploads"}
	cat := DefaultCatalog()
	var got []string
	for _, cp := range cat.Capabilities {
		got = append(got, cp.ID)
		if cp.Cost.Hours < 0 || cp.Cost.OpsHoursPerMonth < 0 {
			t.Errorf("%s: negative cost", cp.ID)
		}
		if cp.Category == Rebuild && cp.Cost.Ops == "" {
			t.Errorf("%s: a rebuilt capability must say what you operate", cp.ID)
		}
		for _, r := range cp.Rules {
			if r.Category == DoesNotPort && r.Cost != nil && r.Cost.Hours != 0 {
				t.Errorf("%s/%s: a capability that does not port costs no hours", cp.ID, r.ID)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("catalog ids %v, want %v", got, want)
	}
	if !slices.Equal(CapabilityIDs, want) {
		t.Fatalf("CapabilityIDs %v, want %v", CapabilityIDs, want)
	}
	if len(cat.FallbackModels) == 0 {
		t.Fatal("no fallback models")
	}
	for i := 1; i < len(cat.FallbackModels); i++ {
		if cat.FallbackModels[i].VRAMBytes > cat.FallbackModels[i-1].VRAMBytes {
			t.Errorf("fallback models must go from largest to smallest: %s after %s", cat.FallbackModels[i].Tag, cat.FallbackModels[i-1].Tag)
		}
	}
}

// The shipped file parses with the same strict checks.
func TestCatalogFileIsStrict(t *testing.T) {
	data, err := os.ReadFile("catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCatalog(data); err != nil {
		t.Fatal(err)
	}
}

func TestParseCatalogRejects(t *testing.T) {
	base := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal(catalogJSON, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	capAt := func(m map[string]any, i int) map[string]any {
		return m["capabilities"].([]any)[i].(map[string]any)
	}
	cases := []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"unknown condition", func(m map[string]any) {
			capAt(m, 0)["rules"].([]any)[0].(map[string]any)["when"] = map[string]any{"airgapped": true}
		}, `unknown field "airgapped"`},
		{"bad category", func(m map[string]any) { capAt(m, 1)["category"] = "maybe" }, `category "maybe"`},
		{"unknown placeholder", func(m map[string]any) { capAt(m, 2)["reason"] = "Needs {gpu_name}." }, "unknown placeholder {gpu_name}"},
		{"missing capability", func(m map[string]any) {
			m["capabilities"] = m["capabilities"].([]any)[:11]
		}, "capability file_uploads has no catalog entry"},
		{"unknown capability", func(m map[string]any) { capAt(m, 3)["id"] = "telepathy" }, "unknown capability id"},
		{"rule without condition", func(m map[string]any) {
			capAt(m, 0)["rules"].([]any)[0].(map[string]any)["when"] = map[string]any{}
		}, "empty when"},
		{"bad size", func(m map[string]any) {
			capAt(m, 5)["rules"].([]any)[1].(map[string]any)["when"] = map[string]any{"vram_below_bytes": "6 gigs"}
		}, `size "6 gigs"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			c.change(m)
			data, _ := json.Marshal(m)
			_, err := ParseCatalog(data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestBytesAcceptsNumbersAndUnits(t *testing.T) {
	for in, want := range map[string]int64{`6442450944`: 6 << 30, `"6GiB"`: 6 << 30, `"1.5 GiB"`: 3 << 29, `"512MiB"`: 512 << 20} {
		var b Bytes
		if err := json.Unmarshal([]byte(in), &b); err != nil || int64(b) != want {
			t.Errorf("%s: got %d, %v; want %d", in, b, err, want)
		}
	}
	var b Bytes
	if err := json.Unmarshal([]byte(`"6GB"`), &b); err == nil {
		t.Error("decimal GB accepted in the catalog; binary units only")
	}
}

// Example of the rules table as the README shows it.
func ExampleCatalog_rulesTable() {
	cat := DefaultCatalog()
	for _, cp := range cat.Capabilities[:2] {
		fmt.Printf("%s: %s (%d rules)\n", cp.ID, cp.Category, len(cp.Rules))
	}
	// Output:
	// instructions: ports (3 rules)
	// conversation_starters: ports (1 rules)
}

func TestRulesMarkdown(t *testing.T) {
	md := RulesMarkdown(DefaultCatalog())
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) != 2+len(CapabilityIDs) {
		t.Fatalf("%d lines:\n%s", len(lines), md)
	}
	for _, want := range []string{
		"| Actions (OpenAPI) (`actions`) | rehome hosts it | no text model fits → **Does not port**; air-gapped and an action calls an outside API → **Does not port**;",
		"| Image generation (`image_generation`) | You rebuild | no text model fits → **Does not port**; VRAM below 6 GiB → **Does not port**; VRAM left beside the text model below 6 GiB → **You rebuild** (reason changes) | 5 h, 1 h/month |",
		"the text model reads images → **rehome hosts it**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

// Vision and image generation both need a second model beside the text
// model, and follow one rule for "no room beside it": they take turns in
// VRAM (you rebuild); only a GPU that cannot hold the second model even
// alone changes that. The catalog check enforces it, and the cases show it
// on the same machine.
func TestSecondModelIsOneRule(t *testing.T) {
	cat := DefaultCatalog()
	for _, id := range []string{Vision, ImageGeneration} {
		cp, _ := cat.Lookup(id)
		var turns, alone *Rule
		for i, r := range cp.Rules {
			switch {
			case r.When.VRAMForSecondModel != nil:
				turns = &cp.Rules[i]
			case r.When.VRAMBelow != nil:
				alone = &cp.Rules[i]
			}
		}
		if turns == nil || alone == nil || turns.ID != "take-turns" || alone.ID != "gpu-too-small" || *turns.When.VRAMForSecondModel != *alone.When.VRAMBelow {
			t.Fatalf("%s: rules %+v", id, cp.Rules)
		}
		if turns.Category != "" && turns.Category != Rebuild {
			t.Errorf("%s: no room beside the text model gives %s", id, turns.Category)
		}
		// No room beside the text model on an 8 GiB GPU: both take turns.
		r := Evaluate(cp, gpu(8, 7.5))
		if r.Category != Rebuild || r.Rule != "take-turns" {
			t.Errorf("%s with 0.5 GiB beside the text model: %s by %q", id, r.Category, r.Rule)
		}
	}
	// A catalog where no room beside the text model does not port is refused.
	bad := strings.Replace(string(catalogJSON), `"id": "take-turns",`, `"id": "take-turns", "category": "does_not_port",`, 1)
	if _, err := ParseCatalog([]byte(bad)); err == nil || !strings.Contains(err.Error(), "taking turns") {
		t.Errorf("a take-turns rule that does not port: %v", err)
	}
	// And one without the rule for a GPU too small even alone.
	bad = strings.Replace(string(catalogJSON), `"vram_below_bytes": "3GiB"`, `"vram_below_bytes": "2GiB"`, 1)
	if _, err := ParseCatalog([]byte(bad)); err == nil || !strings.Contains(err.Error(), "even alone") {
		t.Errorf("no rule for a GPU too small alone: %v", err)
	}
}
