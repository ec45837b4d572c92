package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/hardware"
	"rehome/backend/models"
	"rehome/backend/store"
)

type fixture struct {
	st  *store.Store
	as  *assistant.Service
	svc *Service
	now time.Time
}

func newFixture(t *testing.T, det Detector) *fixture {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{st: st, as: assistant.NewService(st, filepath.Join(t.TempDir(), "knowledge")), now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	f.svc = NewService(st, f.as, Options{Detector: det, Now: func() time.Time { f.now = f.now.Add(time.Minute); return f.now }})
	return f
}

func (f *fixture) assistant(t *testing.T, a assistant.Assistant) assistant.Assistant {
	t.Helper()
	a, err := f.as.Create(a)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestRunStoresAndListsNewestFirst(t *testing.T) {
	f := newFixture(t, nil)
	a := f.assistant(t, assistant.Assistant{Name: "Analyst", Instructions: "Analyse CSVs.", Capabilities: []assistant.Capability{assistant.CodeInterpreter, assistant.ImageGeneration}})
	first, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{a.ID}, VRAMBytes: i64(gib(8)), RAMBytes: i64(gib(32))})
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{a.ID}, VRAMBytes: i64(gib(24)), RAMBytes: i64(gib(64)), AirGapped: true})
	if err != nil {
		t.Fatal(err)
	}
	if first.ID == "" || first.Schema != SchemaVersion || first.Created.IsZero() || first.TextModel == nil || first.TextModel.Tag != "qwen2.5:7b" {
		t.Fatalf("first record %+v", first)
	}
	list, err := f.svc.List(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != second.ID || list[1].ID != first.ID {
		t.Fatalf("list order %v", []string{list[0].ID, list[1].ID})
	}
	got, err := f.svc.Get(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Assistants[0].Subject.AssistantID != a.ID || got.Machine.VRAMBytes != gib(8) || got.Assistants[0].Verdict.Decision != first.Assistants[0].Verdict.Decision {
		t.Fatalf("stored record differs: %+v", got)
	}
	if _, err := f.svc.Get("nope"); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "rehome audit list") {
		t.Fatalf("missing audit: %v", err)
	}
	if l1, _ := f.svc.List(1); len(l1) != 1 || l1[0].ID != second.ID {
		t.Fatal("limit not applied")
	}
}

func TestCompareSaysWhatChangedAndWhy(t *testing.T) {
	f := newFixture(t, nil)
	a := f.assistant(t, assistant.Assistant{Name: "Analyst", Instructions: "x", Capabilities: []assistant.Capability{assistant.ImageGeneration, assistant.WebBrowsing}})
	small, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{a.ID}, VRAMBytes: i64(gib(4)), RAMBytes: i64(gib(16)), DataMustStayLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	big, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{a.ID}, VRAMBytes: i64(gib(24)), RAMBytes: i64(gib(16)), DataMustStayLocal: true, AirGapped: true})
	if err != nil {
		t.Fatal(err)
	}
	// Either order: the older audit is the "from" side.
	c, err := f.svc.Compare(big.ID, small.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Older.ID != small.ID || c.Newer.ID != big.ID {
		t.Fatalf("sides %s → %s", c.Older.ID, c.Newer.ID)
	}
	fields := map[string]Change{}
	for _, ch := range c.Inputs {
		fields[ch.Field] = ch
	}
	if fields["VRAM"].From != "4 GiB" || fields["VRAM"].To != "24 GiB" || fields["Air-gapped"].To != "yes" || fields["Text model"].From == "" {
		t.Fatalf("inputs %+v", c.Inputs)
	}
	if len(c.Assistants) != 1 || c.Assistants[0].Status != "changed" {
		t.Fatalf("assistants %+v", c.Assistants)
	}
	caps := map[string]CapabilityChange{}
	for _, cc := range c.Assistants[0].Capabilities {
		caps[cc.ID] = cc
	}
	img := caps[ImageGeneration]
	if img.From != DoesNotPort || img.To != Rebuild || !strings.Contains(img.Why, "now 2 GiB of VRAM left beside Qwen2.5 32B") || !strings.Contains(img.Why, "before: 4 GiB of VRAM is below 6 GiB") {
		t.Fatalf("image generation change %+v", img)
	}
	web := caps[WebBrowsing]
	if web.From != Rebuild || web.To != DoesNotPort || !strings.Contains(web.Why, "now the machine is air-gapped") || !strings.Contains(web.Why, "before: the data must stay on this machine") {
		t.Fatalf("web browsing change %+v", web)
	}
	if _, ok := caps[Instructions]; !ok {
		t.Fatal("instructions changed rule (small model → default) but is not listed")
	}
	if !strings.Contains(c.Summary, "1 assistant changed after VRAM 4 GiB → 24 GiB") {
		t.Fatalf("summary %q", c.Summary)
	}
	same := Compare(big, big)
	if same.Summary != "Nothing changed between these audits." || same.Assistants[0].Status != "same" {
		t.Fatalf("self-compare %+v", same)
	}
}

func TestCompareAddedAndRemovedAssistants(t *testing.T) {
	cat := DefaultCatalog()
	a, b := subject(t, "vision"), subject(t, "canvas")
	a.Name, b.Name = "A", "B"
	r1, _ := Build(cat, Request{}, machine(8, 32), model(6), []Subject{a})
	r2, _ := Build(cat, Request{}, machine(8, 32), model(6), []Subject{b})
	r1.ID, r2.ID = "1", "2"
	r2.Created = r1.Created.Add(time.Hour)
	c := Compare(r1, r2)
	var st []string
	for _, x := range c.Assistants {
		st = append(st, x.Name+":"+x.Status)
	}
	if !slices.Equal(st, []string{"B:added", "A:removed"}) {
		t.Fatalf("statuses %v", st)
	}
}

func TestNeedVRAMBeforeAnything(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.svc.Run(context.Background(), Request{Features: []string{"knowledge"}})
	var nv *NeedVRAMError
	if !errors.Is(err, ErrNeedVRAM) || !errors.As(err, &nv) || !strings.Contains(err.Error(), "neither given nor detected") || strings.Contains(err.Error(), "--") {
		t.Fatalf("err = %v", err)
	}
	_, err = f.svc.Run(context.Background(), Request{Features: []string{"knowledge"}, Detect: true})
	if !errors.As(err, &nv) || !strings.Contains(err.Error(), "detection is not available") {
		t.Fatalf("err = %v", err)
	}
	if n, _ := f.st.Count(store.Audits); n != 0 {
		t.Fatalf("%d audits stored without VRAM", n)
	}
}

func TestDetectionFillsWhatIsNotGiven(t *testing.T) {
	det := DetectorFunc(func(context.Context) (Machine, error) {
		return Machine{VRAMBytes: gib(12), RAMBytes: gib(64), VRAMSource: "detected", RAMSource: "detected", GPUs: []string{"NVIDIA RTX 3060"}, Notes: []string{}}, nil
	})
	f := newFixture(t, det)
	rec, err := f.svc.Run(context.Background(), Request{Features: []string{"vision"}, Detect: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Machine.VRAMBytes != gib(12) || rec.Machine.VRAMSource != "detected" || rec.Machine.GPUs[0] != "NVIDIA RTX 3060" {
		t.Fatalf("machine %+v", rec.Machine)
	}
	// VRAM given by hand wins; RAM still detected.
	rec, err = f.svc.Run(context.Background(), Request{Features: []string{"vision"}, Detect: true, VRAMBytes: i64(gib(6))})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Machine.VRAMBytes != gib(6) || rec.Machine.VRAMSource != "given" || rec.Machine.RAMBytes != gib(64) || rec.Machine.RAMSource != "detected" {
		t.Fatalf("machine %+v", rec.Machine)
	}
	// Without detection, unknown RAM is said, not guessed.
	rec, err = f.svc.Run(context.Background(), Request{Features: []string{"vision"}, VRAMBytes: i64(0)})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Machine.RAMSource != "unknown" || len(rec.Machine.Notes) == 0 || rec.TextModel != nil || rec.Assistants[0].Verdict.Decision != Keep {
		t.Fatalf("record %+v", rec)
	}
}

func TestAllAssistantsAndHandFeatures(t *testing.T) {
	f := newFixture(t, nil)
	f.assistant(t, assistant.Assistant{Name: "First", Instructions: "1"})
	f.assistant(t, assistant.Assistant{Name: "Second", Instructions: "2", Capabilities: []assistant.Capability{assistant.Voice}})
	rec, err := f.svc.Run(context.Background(), Request{All: true, Features: []string{"canvas"}, Label: "Idea", VRAMBytes: i64(gib(16)), RAMBytes: i64(gib(32))})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, aa := range rec.Assistants {
		names = append(names, aa.Subject.Name)
	}
	if !slices.Equal(names, []string{"First", "Second", "Idea"}) {
		t.Fatalf("subjects %v", names)
	}
	if _, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{"missing"}, VRAMBytes: i64(0)}); err == nil || !strings.Contains(err.Error(), `assistant "missing" not found`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := f.svc.Run(context.Background(), Request{VRAMBytes: i64(0)}); err == nil || !strings.Contains(err.Error(), "nothing to audit") {
		t.Fatalf("err = %v", err)
	}
}

func TestChecklist(t *testing.T) {
	f := newFixture(t, nil)
	a := f.assistant(t, assistant.Assistant{
		Name: "Market Analyst", Instructions: "x", Starters: []string{"Summarise Q3"},
		Knowledge:    []assistant.KnowledgeFile{{Name: "q3.pdf", Size: 2048, SHA256: strings.Repeat("ab", 32)}},
		Capabilities: []assistant.Capability{assistant.CodeInterpreter, assistant.WebBrowsing},
	})
	if _, err := f.svc.Checklist(a.ID); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "has not been audited yet") {
		t.Fatalf("err = %v", err)
	}
	if _, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{a.ID}, VRAMBytes: i64(gib(8)), RAMBytes: i64(gib(32)), AirGapped: true}); err != nil {
		t.Fatal(err)
	}
	c, err := f.svc.Checklist(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for i, s := range c.Steps {
		if s.N != i+1 {
			t.Fatalf("step %d numbered %d", i+1, s.N)
		}
		titles = append(titles, s.Title)
	}
	want := []string{
		"Check the machine", "Bring the model's weights in", "Create the local assistant", "Or use it in Open WebUI",
		"Let rehome host knowledge files (retrieval)", "Let rehome host code interpreter & data analysis",
		"Leave behind: web browsing", "Test side by side", "Keep a portable copy", "Cancel the subscription last",
	}
	if !slices.Equal(titles, want) {
		t.Fatalf("steps\n%q\nwant\n%q", titles, want)
	}
	if c.Decision != MoveInPart || !strings.Contains(c.Steps[4].Detail, "q3.pdf (2 KiB, sha256 abababababab…)") {
		t.Fatalf("checklist %+v", c)
	}
	if !strings.Contains(c.Steps[2].Commands[0], "--format modelfile --model qwen2.5:7b -o market-analyst.Modelfile") {
		t.Fatalf("commands %q", c.Steps[2].Commands)
	}
	if !strings.Contains(c.Steps[6].Detail, "cannot go to ChatGPT either") || c.Steps[5].Link != "sandbox" {
		t.Fatalf("steps %+v", c.Steps[5:7])
	}
	// Air-gapped: the exact file to carry, and the command that adds it.
	if d := c.Steps[1].Detail; !strings.Contains(d, "carry qwen2.5-7b-instruct-q4_k_m.gguf (Qwen2.5 7B Instruct at Q4_K_M, about 4.7 GB = 4.4 GiB) and run `rehome models add FILE`") ||
		!strings.Contains(d, "no Ollama needed") {
		t.Fatalf("air-gapped weights step: %q", d)
	}
	if cmds := c.Steps[1].Commands; len(cmds) != 2 || cmds[0] != "rehome models add /media/usb/qwen2.5-7b-instruct-q4_k_m.gguf --copy" || !strings.HasPrefix(cmds[1], "ollama pull qwen2.5:7b") {
		t.Fatalf("air-gapped weights commands: %q", cmds)
	}
	// Online (the data must stay here, so it moves), the step stays Ollama's pull.
	if _, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{a.ID}, VRAMBytes: i64(gib(8)), RAMBytes: i64(gib(32)), DataMustStayLocal: true}); err != nil {
		t.Fatal(err)
	}
	if c, err = f.svc.Checklist(a.ID); err != nil || c.Steps[1].Title != "Get the model's weights" || c.Steps[1].Commands[0] != "ollama pull qwen2.5:7b" {
		t.Fatalf("online weights step: %+v %v", c.Steps[1], err)
	}
}

func TestMachineFromReport(t *testing.T) {
	r := hardware.Report{
		Memory: hardware.Memory{TotalBytes: 32 << 30},
		GPUs: []hardware.GPU{
			{Vendor: "NVIDIA", Product: "GeForce RTX 4060", VRAMTotalBytes: 8 << 30, VRAMSource: hardware.SourceNVML},
			{Vendor: "Intel", Product: "UHD 770", VRAMTotalBytes: 16 << 30, VRAMSource: hardware.SourceUnified, Unified: true},
		},
		Notes: []string{"pci.ids missing"},
	}
	m, known := MachineFromReport(r)
	if !known || m.VRAMBytes != 8<<30 || m.RAMBytes != 32<<30 || m.Unified || m.VRAMSource != "detected" {
		t.Fatalf("%+v known=%v", m, known)
	}
	if !slices.Equal(m.GPUs, []string{"NVIDIA GeForce RTX 4060 (8 GiB, nvml)", "Intel UHD 770 (16 GiB, unified)"}) || m.Notes[0] != "pci.ids missing" {
		t.Fatalf("%+v", m)
	}
	r.GPUs = append(r.GPUs, hardware.GPU{Vendor: "AMD", Product: "Radeon", VRAMSource: hardware.SourceUnknown})
	if _, known := MachineFromReport(r); known {
		t.Fatal("a GPU with unreadable memory counted as known")
	}
	cpu, known := MachineFromReport(hardware.Report{Memory: hardware.Memory{TotalBytes: 16 << 30}, GPUs: []hardware.GPU{}, CPUOnly: true})
	if !known || cpu.VRAMBytes != 0 {
		t.Fatalf("CPU-only machine %+v known=%v", cpu, known)
	}
}

// bestFor is the first candidate, as the advisor ranks them.
func bestFor(adv FitAdvisor, vram, ram int64) (Model, bool) {
	c := adv.Candidates(vram, ram)
	if len(c) == 0 {
		return Model{}, false
	}
	return c[0], true
}

func TestFallbackAdvisor(t *testing.T) {
	adv := FallbackAdvisor{Catalog: DefaultCatalog()}
	cases := []struct {
		vram, ram float64
		tag       string
		cpu, ok   bool
	}{
		{24, 64, "qwen2.5:32b", false, true},
		{8, 32, "qwen2.5:7b", false, true},
		{5, 32, "gemma3:4b", false, true},
		{0, 16, "qwen2.5:14b", true, true},
		{0, 2, "", false, false},
	}
	for _, c := range cases {
		m, ok := bestFor(adv, gib(c.vram), gib(c.ram))
		if ok != c.ok || m.Tag != c.tag || m.OnCPU != c.cpu {
			t.Errorf("best for (%v GiB, %v GiB) = %s cpu=%v ok=%v", c.vram, c.ram, m.Tag, m.OnCPU, ok)
		}
	}
	// Every model that fits is a candidate, best first.
	all := adv.Candidates(gib(24), gib(64))
	if len(all) != len(DefaultCatalog().FallbackModels) || all[1].Tag != "gemma3:27b" || !all[1].Vision {
		t.Errorf("24 GiB candidates: %+v", all)
	}
}

// The fit estimate of backend/models, as the app wires it in.
func TestModelsAdvisor(t *testing.T) {
	adv := ModelsAdvisor{}
	m, ok := bestFor(adv, gib(8), gib(32))
	if !ok || m.OnCPU || m.VRAMBytes <= 0 || m.VRAMBytes > gib(8) || m.Name == "" || m.Quant == "" || m.Source != "fit estimate" {
		t.Fatalf("8 GiB GPU: %+v ok=%v", m, ok)
	}
	big, ok := bestFor(adv, gib(24), gib(64))
	if !ok || big.VRAMBytes <= m.VRAMBytes {
		t.Fatalf("24 GiB picks %+v, not bigger than %+v", big, m)
	}
	cpu, ok := bestFor(adv, 0, gib(16))
	if !ok || !cpu.OnCPU || cpu.RAMBytes <= 0 || cpu.RAMBytes > gib(16) {
		t.Fatalf("CPU only: %+v ok=%v", cpu, ok)
	}
	if _, ok := bestFor(adv, 0, 256<<20); ok {
		t.Fatal("a model fits in 256 MiB of RAM")
	}
	// A GPU too small for any model falls back to the CPU.
	tiny, ok := bestFor(adv, 128<<20, gib(16))
	if !ok || !tiny.OnCPU {
		t.Fatalf("tiny GPU: %+v ok=%v", tiny, ok)
	}
}

// The advisor's VRAM is the fit's VRAM figure: the token-embedding table
// that llama.cpp keeps in RAM is not counted against the GPU, so the room
// left beside the model is what the fit says.
func TestModelsAdvisorUsesTheFitsVRAM(t *testing.T) {
	for _, vram := range []float64{8, 12, 16, 24, 48} {
		mach := models.ManualMachine(gib(vram), gib(64), 1, false)
		cands := ModelsAdvisor{}.Candidates(gib(vram), gib(64))
		if len(cands) == 0 {
			t.Fatalf("%v GiB: no candidates", vram)
		}
		for _, c := range cands {
			mod, err := models.Lookup(c.ID)
			if err != nil {
				t.Fatal(err)
			}
			r, err := models.Fit(mod, c.Quant, models.Options{Context: min(fitContext, mod.MaxContext)}, mach)
			if err != nil {
				t.Fatal(err)
			}
			if c.VRAMBytes != int64(r.VRAMNeededBytes) || c.RAMBytes != int64(r.RAMNeededBytes) {
				t.Errorf("%v GiB, %s: advisor VRAM %d RAM %d, fit VRAM %d RAM %d", vram, c.Name, c.VRAMBytes, c.RAMBytes, r.VRAMNeededBytes, r.RAMNeededBytes)
			}
			if r.TotalBytes > r.VRAMNeededBytes && c.VRAMBytes == int64(r.TotalBytes) {
				t.Errorf("%s: the total with RAM-resident embeddings counted as VRAM", c.Name)
			}
			f := Facts{VRAMBytes: gib(vram), TextModel: &c}
			if f.FreeVRAM() != gib(vram)-int64(r.VRAMNeededBytes) {
				t.Errorf("%s: room left %d, want %d", c.Name, f.FreeVRAM(), gib(vram)-int64(r.VRAMNeededBytes))
			}
		}
	}
}

// On a 24 GiB GPU an assistant that needs vision runs on a model that reads
// images (Gemma 3 27B fits there): vision ports, it is not left behind, and
// the larger text-only model is shown as the alternative with its cost.
func TestVisionAssistantOn24GiB(t *testing.T) {
	s, err := ManualSubject("Screenshot helper", []string{Vision}, false)
	if err != nil {
		t.Fatal(err)
	}
	m := Machine{VRAMBytes: gib(24), RAMBytes: gib(64)}
	rec, err := BuildChoosing(DefaultCatalog(), Request{}, m, ModelsAdvisor{}.Candidates(gib(24), gib(64)), []Subject{s})
	if err != nil {
		t.Fatal(err)
	}
	aa := rec.Assistants[0]
	if aa.TextModel == nil || !aa.TextModel.Vision {
		t.Fatalf("chose %+v for an assistant that needs vision", aa.TextModel)
	}
	if c := category(aa, Vision); c != Hosts {
		t.Errorf("vision: %s, want hosts", c)
	}
	if aa.Choice == nil || len(aa.Choice.Alternatives) < 2 || !slices.Equal(aa.Choice.Needs, []string{NeedVision}) {
		t.Fatalf("choice: %+v", aa.Choice)
	}
	first := aa.Choice.Alternatives[0]
	if first.Chosen || first.Model.Vision || first.Summary == "" || !strings.Contains(aa.Choice.Reason, first.Model.Name) {
		t.Errorf("the best model that fits should be shown as the costlier alternative: %+v; reason %q", first, aa.Choice.Reason)
	}
	if aa.TextModel.Tag == "" {
		t.Errorf("no Ollama tag for %s", aa.TextModel.Name)
	}
	// An assistant with actions and code interpreter gets a model that
	// calls tools; one with no needs keeps the best model that fits.
	tools, _ := ManualSubject("Ops bot", []string{Actions, CodeInterpreter}, true)
	plain, _ := ManualSubject("Writer", nil, false)
	rec, err = BuildChoosing(DefaultCatalog(), Request{}, m, ModelsAdvisor{}.Candidates(gib(24), gib(64)), []Subject{tools, plain})
	if err != nil {
		t.Fatal(err)
	}
	if tm := rec.Assistants[0].TextModel; tm == nil || !tm.Tools || category(rec.Assistants[0], Actions) != Hosts {
		t.Errorf("actions: chose %+v, actions %s", tm, category(rec.Assistants[0], Actions))
	}
	if tm := rec.Assistants[0].TextModel; !tm.Coder {
		t.Errorf("code interpreter and actions: chose %s, want a coder model that calls tools", tm.Name)
	}
	best := ModelsAdvisor{}.Candidates(gib(24), gib(64))[0]
	if tm := rec.Assistants[1].TextModel; tm == nil || tm.Name != best.Name {
		t.Errorf("no needs: chose %+v, want the best model %s", tm, best.Name)
	}
}

// An assistant imported from the Assistants API list with its files left on
// OpenAI's servers keeps knowledge and code interpreter in its audit, and
// the audit and checklist say which files to bring.
func TestFilesLeftOnOpenAIMustBeBrought(t *testing.T) {
	f := newFixture(t, nil)
	data, err := os.ReadFile("../assistant/testdata/openai_assistants_list.json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.as.ImportJSON(data, assistant.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, it := range rep.Items {
		if it.SourceID == "asst_abc456" {
			id = it.Assistant.ID
		}
	}
	rec, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{id}, VRAMBytes: i64(gib(24)), RAMBytes: i64(gib(64)), DataMustStayLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	aa := rec.Assistants[0]
	got := map[string]Result{}
	for _, r := range aa.Capabilities {
		got[r.ID] = r
	}
	kn, ok := got[Knowledge]
	if !ok {
		t.Fatalf("knowledge left out of the audit: %v", aa.Subject.Features)
	}
	if !strings.Contains(kn.Bring, "vs_abc123") || !strings.Contains(kn.Bring, "Bring the files first") {
		t.Errorf("knowledge does not ask for the vector store: %q", kn.Bring)
	}
	if ci := got[CodeInterpreter]; !strings.Contains(ci.Bring, "file-abc123") {
		t.Errorf("code interpreter does not ask for its file: %q", ci.Bring)
	}
	c, err := f.svc.Checklist(id)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, s := range c.Steps {
		all = append(all, s.Title+": "+s.Detail)
	}
	text := strings.Join(all, "\n")
	if !strings.Contains(text, "vs_abc123") || !strings.Contains(text, "file-abc123") {
		t.Errorf("checklist does not ask for the files:\n%s", text)
	}
	// file_search on and nothing at all came along: still knowledge, and
	// the audit asks for the files.
	bare := f.assistant(t, assistant.Assistant{Name: "Searcher", Capabilities: []assistant.Capability{assistant.Knowledge}})
	rec, err = f.svc.Evaluate(context.Background(), Request{AssistantIDs: []string{bare.ID}, VRAMBytes: i64(gib(8)), RAMBytes: i64(gib(32))})
	if err != nil {
		t.Fatal(err)
	}
	if r := rec.Assistants[0].Capabilities; len(r) != 2 || r[1].ID != Knowledge || !strings.Contains(r[1].Bring, "no knowledge files came") {
		t.Errorf("file search without files: %+v", r)
	}
	// Hand-ticked features say nothing about files.
	rec, _ = f.svc.Evaluate(context.Background(), Request{Features: []string{"knowledge"}, VRAMBytes: i64(gib(8)), RAMBytes: i64(gib(32))})
	if r := rec.Assistants[0].Capabilities[1]; r.Bring != "" {
		t.Errorf("hand-ticked knowledge: bring %q", r.Bring)
	}
}
