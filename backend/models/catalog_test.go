package models

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

func TestCatalogCoversTheFamilies(t *testing.T) {
	all, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 25 {
		t.Fatalf("%d models, want at least 25", len(all))
	}
	id := regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]*$`)
	families := map[string]bool{}
	var moe, dense, coder, vision, reasoning int
	for _, m := range all {
		if !id.MatchString(m.ID) {
			t.Errorf("id %q is not lower-case kebab", m.ID)
		}
		if !strings.HasPrefix(m.Source, "config: https://huggingface.co/") {
			t.Errorf("%s: source %q is not a config URL", m.ID, m.Source)
		}
		families[m.Family] = true
		if m.MoE() {
			moe++
		} else {
			dense++
		}
		if m.HasTag("coder") {
			coder++
		}
		if m.HasTag("vision") {
			vision++
		}
		if m.HasTag("reasoning") {
			reasoning++
		}
		if len(m.Quants) == 0 {
			t.Errorf("%s has no quantizations", m.ID)
		}
	}
	for _, f := range []string{"Llama 3.1", "Llama 3.2", "Llama 3.3", "Qwen2.5", "Qwen2.5 Coder", "Qwen2.5 VL", "Qwen3", "Mistral", "Mixtral",
		"Gemma 2", "Gemma 3", "Phi-3", "Phi-4", "DeepSeek-R1 Distill", "gpt-oss"} {
		if !families[f] {
			t.Errorf("no %s model in the catalog", f)
		}
	}
	if moe < 3 || dense < 20 || coder < 2 || vision < 2 || reasoning < 4 {
		t.Errorf("moe %d dense %d coder %d vision %d reasoning %d", moe, dense, coder, vision, reasoning)
	}
}

// Every model's figures, laid out as llama.cpp's converter writes the
// tensors, must add up to the published parameter count: a wrong layer
// count, head dim or vocabulary would show here.
func TestFiguresReproducePublishedParameterCounts(t *testing.T) {
	all, _ := Catalog()
	for _, m := range all {
		if m.HasTag("vision") {
			// The published count includes the vision encoder.
			if m.ParamsVision < 300e6 || m.ParamsVision > 1e9 {
				t.Errorf("%s: vision encoder of %d parameters is implausible: a text figure is wrong", m.ID, m.ParamsVision)
			}
			continue
		}
		if m.ParamsText != m.ParamsTotal {
			t.Errorf("%s: figures give %d parameters, published %d (%+d)", m.ID, m.ParamsText, m.ParamsTotal, int64(m.ParamsText)-int64(m.ParamsTotal))
		}
	}
}

// Active parameters of the mixtures of experts, against the publishers'.
func TestActiveParameters(t *testing.T) {
	for id, published := range map[string]float64{
		"qwen3-30b-a3b":              3.3e9,
		"qwen3-235b-a22b":            22e9,
		"mixtral-8x7b-instruct-v0.1": 12.9e9,
		"gpt-oss-20b":                3.61e9,
		"gpt-oss-120b":               5.13e9,
	} {
		m, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(float64(m.ParamsActive)-published) / published; d > 0.10 {
			t.Errorf("%s: %d active parameters, published %.3g (%.0f%% off)", id, m.ParamsActive, published, d*100)
		}
	}
}

func TestLookup(t *testing.T) {
	if m, err := Lookup(" Llama-3.1-8B-Instruct "); err != nil || m.ID != "llama-3.1-8b-instruct" {
		t.Errorf("case-insensitive lookup: %v %v", m.ID, err)
	}
	_, err := Lookup("llama-3.1")
	if err == nil || !strings.Contains(err.Error(), "llama-3.1-8b-instruct") {
		t.Errorf("near miss should suggest ids: %v", err)
	}
	_, err = Lookup("no-such-model")
	if err == nil || !strings.Contains(err.Error(), "rehome models") {
		t.Errorf("unknown id error should say how to list: %v", err)
	}
}

func TestCatalogRejectsBadEntries(t *testing.T) {
	for name, js := range map[string]string{
		"no source":    `{"models":[{"id":"x","name":"X","layers":1,"hidden_size":256,"intermediate_size":512,"heads":2,"kv_heads":1,"head_dim":128,"vocab_size":10,"max_context":10}]}`,
		"bad heads":    `{"models":[{"id":"x","name":"X","layers":1,"hidden_size":256,"intermediate_size":512,"heads":3,"kv_heads":2,"head_dim":128,"vocab_size":10,"max_context":10,"source":"s"}]}`,
		"bad quant":    `{"models":[{"id":"x","name":"X","layers":1,"hidden_size":256,"intermediate_size":512,"heads":2,"kv_heads":1,"head_dim":128,"vocab_size":10,"max_context":10,"source":"s","quants":["Q9"]}]}`,
		"too few":      `{"models":[{"id":"x","name":"X","layers":1,"hidden_size":256,"intermediate_size":512,"heads":2,"kv_heads":1,"head_dim":128,"vocab_size":10,"max_context":10,"source":"s","params_total":5}]}`,
		"experts":      `{"models":[{"id":"x","name":"X","layers":1,"hidden_size":256,"heads":2,"kv_heads":1,"head_dim":128,"vocab_size":10,"max_context":10,"source":"s","experts":8}]}`,
		"not json":     `{`,
		"duplicate id": `{"models":[{"id":"x","name":"X","layers":1,"hidden_size":256,"intermediate_size":512,"heads":2,"kv_heads":1,"head_dim":128,"vocab_size":10,"max_context":10,"source":"s"},{"id":"x","name":"X","layers":1,"hidden_size":256,"intermediate_size":512,"heads":2,"kv_heads":1,"head_dim":128,"vocab_size":10,"max_context":10,"source":"s"}]}`,
	} {
		if _, err := parseCatalog([]byte(js)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestQuantRulesFallBackOnOddRows(t *testing.T) {
	// Qwen2.5 0.5B has 896-wide rows, not a multiple of the 256-weight
	// k-quant block: llama.cpp stores Q4_K tensors as Q5_0, Q6_K as Q8_0.
	m, _ := Lookup("qwen2.5-0.5b-instruct")
	l, err := m.Layout("Q4_K_M")
	if err != nil {
		t.Fatal(err)
	}
	if l.ByType["Q5_0"] == 0 || l.ByType["Q8_0"] == 0 { // Q4_K remains for the 4864-wide ffn_down
		t.Errorf("types %v", l.ByType)
	}
	if _, err := m.Layout("Q9_K"); err == nil || !strings.Contains(err.Error(), "Q4_K_M") {
		t.Errorf("unknown quant error: %v", err)
	}
	o, _ := Lookup("gpt-oss-20b")
	if _, err := o.Layout("Q4_K_M"); err == nil || !strings.Contains(err.Error(), "MXFP4") {
		t.Errorf("gpt-oss Q4_K_M should say which quants exist: %v", err)
	}
}

// Every model says whether it calls tools and reads images, and the tag
// people pull it by in Ollama. The spot checks are the facts the audit's
// choice of a text model turns on.
func TestCatalogCapabilitiesAndOllamaTags(t *testing.T) {
	all, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	tagged := 0
	seen := map[string]string{}
	for _, m := range all {
		if m.Ollama != "" {
			tagged++
			if other, dup := seen[m.Ollama]; dup {
				t.Errorf("%s and %s share the Ollama tag %s", m.ID, other, m.Ollama)
			}
			seen[m.Ollama] = m.ID
		}
		if m.Vision != m.HasTag("vision") {
			t.Errorf("%s: vision %v, tags %v", m.ID, m.Vision, m.Tags)
		}
	}
	if tagged < len(all)*3/4 {
		t.Errorf("only %d of %d models have an Ollama tag", tagged, len(all))
	}
	for _, c := range []struct {
		id            string
		tools, vision bool
		ollama        string
	}{
		{"qwen2.5-32b-instruct", true, false, "qwen2.5:32b"},
		{"qwen2.5-coder-32b-instruct", true, false, "qwen2.5-coder:32b"},
		{"gemma-3-27b-it", false, true, "gemma3:27b"},
		{"qwen2.5-vl-7b-instruct", false, true, "qwen2.5vl:7b"},
		{"llama-3.1-8b-instruct", true, false, "llama3.1:8b"},
		{"gpt-oss-20b", true, false, "gpt-oss:20b"},
	} {
		m, err := Lookup(c.id)
		if err != nil {
			t.Fatal(err)
		}
		if m.Tools != c.tools || m.Vision != c.vision || m.Ollama != c.ollama {
			t.Errorf("%s: tools %v vision %v ollama %q, want %v %v %q", c.id, m.Tools, m.Vision, m.Ollama, c.tools, c.vision, c.ollama)
		}
	}
	// A catalog entry whose vision flag and tags disagree is refused.
	if _, err := parseCatalog([]byte(`{"models":[{"id":"x","name":"X","arch":"llama","layers":2,"hidden_size":64,"intermediate_size":128,"heads":2,"kv_heads":1,"head_dim":32,"vocab_size":100,"max_context":1024,"source":"s","tags":["chat"],"vision":true}]}`)); err == nil || !strings.Contains(err.Error(), "vision") {
		t.Errorf("vision without the tag: %v", err)
	}
}
