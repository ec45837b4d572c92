package app

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/core"
	"rehome/sandbox"
)

// pathWords are the names (of a parameter, or a JSON field of an argument)
// that say a method takes a host path.
var pathWords = regexp.MustCompile(`(?i)path|file|bundle|knowledge|dir`)

// refusal is how the rule refuses (access.go's errNotGiven and writable,
// the dialogs' errNoWindow, servedFile): any other error means the
// method went on with the path.
var refusal = regexp.MustCompile(`is not a file you gave rehome|in a browser rehome writes no file|exist only in the rehome window|needs the rehome window|is not a run output, an upload or a backup`)

// pathAttacks is every bound method that takes a host path, with the call
// a hostile page of the bridge would make: secret is a file no user gave
// rehome. Each must be refused, and the secret's bytes come back nowhere.
var pathAttacks = map[string]func(a *App, secret string) (any, error){
	"PreviewFile":          func(a *App, s string) (any, error) { return a.PreviewFile(s) },
	"ActionSchemaFile":     func(a *App, s string) (any, error) { return a.ActionSchemaFile(s) },
	"AssistantPictureFile": func(a *App, s string) (any, error) { return a.AssistantPictureFile(s) },
	"RunCode": func(a *App, s string) (any, error) {
		return a.RunCode(sandbox.RunRequest{Code: "print(open('/mnt/data/x').read())", InputPath: s})
	},
	"LoadImage":           func(a *App, s string) (any, error) { return a.LoadImage(s) },
	"ImportConversations": func(a *App, s string) (any, error) { return a.ImportConversations(s) },
	"AddLibrary":          func(a *App, s string) (any, error) { return a.AddLibrary(s, true) },
	"SaveImage":           func(a *App, s string) (any, error) { return nil, a.SaveImage(s) },
	"SaveOutput":          func(a *App, s string) (any, error) { return a.SaveOutput(s) },
	"SaveConversation": func(a *App, s string) (any, error) {
		return a.SaveConversation("nope", "md", s)
	},
	"StartSession":   func(a *App, s string) (any, error) { return a.StartSession(s) },
	"ChooseSavePath": func(a *App, s string) (any, error) { return a.ChooseSavePath("Save", s) },
	"Ask": func(a *App, s string) (any, error) {
		if c, err := a.Ask(AskRequest{Question: "what is in it?", Images: []string{s}}); err == nil || !refusal.MatchString(err.Error()) {
			return c, err // an image is held to the rule too
		}
		return a.Ask(AskRequest{Question: "what is in it?", Files: []string{s}})
	},
	"ImportAssistant": func(a *App, s string) (any, error) {
		if imp, err := a.ImportAssistant(AssistantImport{Bundle: s}); err == nil {
			return imp, nil
		}
		return a.ImportAssistant(AssistantImport{JSON: `{"name":"x"}`, Knowledge: []string{s}})
	},
	"ImportAssistants": func(a *App, s string) (any, error) {
		if rep, err := a.ImportAssistants(AssistantImport{Bundle: s}); err == nil {
			return rep, nil
		}
		return a.ImportAssistants(AssistantImport{JSON: `{"name":"x"}`, Knowledge: []string{s}})
	},
	"CreateAssistant": func(a *App, s string) (any, error) {
		return a.CreateAssistant(assistant.Assistant{Name: "x", Knowledge: []assistant.KnowledgeFile{{Name: "n", Path: s}}})
	},
	"AddCarriedModel": func(a *App, s string) (any, error) { return a.AddCarriedModel(s, true) },
	"SetSandboxHost": func(a *App, s string) (any, error) {
		return a.SetSandboxHost(core.SandboxHost{URI: "ssh://x@127.0.0.1:1/run/podman/podman.sock", Identity: s})
	},
	"TestSandboxHost": func(a *App, s string) (any, error) {
		return a.TestSandboxHost(core.SandboxHost{URI: "ssh://x@127.0.0.1:1/run/podman/podman.sock", Identity: s})
	},
	"KnowledgeAdd": func(a *App, s string) (any, error) {
		as, err := a.CreateAssistant(assistant.Assistant{Name: "k"})
		if err != nil {
			return nil, err
		}
		return a.KnowledgeAdd(as.ID, []string{s})
	},
	"UpdateAssistant": func(a *App, s string) (any, error) {
		as, err := a.CreateAssistant(assistant.Assistant{Name: "x"})
		if err != nil {
			return nil, err
		}
		as.Knowledge = []assistant.KnowledgeFile{{Name: "n", Path: s}}
		return a.UpdateAssistant(as)
	},
}

// pathless are the bound methods that take no host path, each checked
// below: a parameter or field named like a path makes the test fail
// until the method has an attack in pathAttacks.
var pathless = []string{
	"BrowsingSettings", "SetBrowsingSettings", "Libraries", "RemoveLibrary", "SearchLibraries", "OpenArticle", "PickLibraryFile",
	"CanvasDocs", "CanvasEdit", "CanvasRestore", "CanvasDiff", "CanvasRun", "StopCanvasRun",
	"MemoryList", "MemoryAdd", "MemoryEdit", "MemoryDelete", "MemoryImport", "MemoryUndo", "MemorySettings", "SetMemoryOff", "SetMemoryMode",
	"Status", "UIReady", "LLMStatus", "LLMHint", "LLMHintFor", "SetAssistantModel", "StopAsk",
	"ListConversations", "GetConversation", "ExportConversation", "RenderConversation", "DeleteConversation", "ShowConversation", "PickExport",
	"ListAssistants", "GetAssistant", "DeleteAssistant", "AssistantCapabilities",
	"RunAudit", "Audits", "GetAudit", "DeleteAudit", "CompareAudits", "AuditCatalog", "Checklist",
	"ExportAssistant", "BackupDatabase", "PickFile", "OpenedFiles", "UIEvent", "ExportImage", "PasteImage",
	"FirstRunStatus", "FirstRunFix", "DismissFirstRun", "Hardware", "Models", "FitOptions", "Fit", "FitTable",
	"RunLimitBounds", "RunLimits", "SetRunLimits", "ResetRunLimits", "StopRun", "ListRuns", "GetRun",
	"SandboxStatus", "VerifyIsolation", "BuildImage", "ExecCell", "InterruptSession", "RestartSession",
	"StopSession", "SessionCells", "ExportSession",
	"CarriedModels", "RemoveCarriedModel", "StartCarriedModel", "StopCarriedModel", "PickModelFile", "PullSource", "PullModel", "CancelPull",
	"KnowledgeList", "KnowledgeSearch", "KnowledgeRemove", "KnowledgeCancel", "KnowledgeRanking", "PickKnowledgeFile",
	"PickKnowledgeFiles", "PickPictureFile", "PickSchemaFile", "AssistantPicture", "FetchActionSchema", "PreviewAssistant",
	"ListActions", "AddAction", "RemoveAction", "SetActionAllowLocal", "TestAction", "AnswerAction", "SignInAction", "SetActionCredentials", "ChatGPTSnippet", "PreviewAssistants",
	"ModelServers", "SetModelServers", "RenameConversation", "SearchConversations", "ModelSettings", "SetModelSettings", "RunAnswerBlock",
	"SandboxHost", "TrustSandboxHost",
	"MCPOverview", "MCPServersOf", "AddMCPServer", "TestMCPServer", "RemoveMCPServer", "SetMCPServerOn", "SetMCPToolAlwaysAllow",
	"MCPHostFiles", "PreviewMCPImport", "ImportMCPServers",
}

// methodParams reads the parameter names of *App's methods from the
// package's source (reflection has only their types).
func methodParams(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	out := map[string][]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); !ok || star.X.(*ast.Ident).Name != "App" {
				continue
			}
			var names []string
			for _, p := range fn.Type.Params.List {
				for _, n := range p.Names {
					names = append(names, n.Name)
				}
			}
			out[fn.Name.Name] = names
		}
	}
	return out
}

// pathFields lists the JSON fields named like a path anywhere in t.
func pathFields(t reflect.Type, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if pathWords.MatchString(name) && elemKind(f.Type) == reflect.String {
			out = append(out, t.Name()+"."+name)
		}
		out = append(out, pathFields(f.Type, seen)...)
	}
	return out
}

// elemKind is the kind of what t holds (t itself, or its elements).
func elemKind(t reflect.Type) reflect.Kind {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind()
}

// TestEveryPathMethodFollowsTheRule enumerates the bound methods (the set
// the bridge and the window serve): each one that takes a host path is
// attacked with a file nobody gave rehome, and a new method that takes
// one cannot skip the rule — it fails here until it has an attack.
func TestEveryPathMethodFollowsTheRule(t *testing.T) {
	h := newTestApp(t)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	a := h.App
	params := methodParams(t)
	for name, m := range bindable(a) {
		_, attacked := pathAttacks[name]
		free := slices.Contains(pathless, name)
		switch {
		case attacked && free:
			t.Errorf("%s is listed both as taking a path and as not", name)
		case !attacked && !free:
			t.Errorf("%s is a new bound method: add it to pathAttacks (with the call a hostile page would make) if it takes a host path, else to pathless", name)
		case free:
			var why []string
			for _, p := range params[name] {
				if pathWords.MatchString(p) {
					why = append(why, "parameter "+p)
				}
			}
			for i := 0; i < m.Type().NumIn(); i++ {
				why = append(why, pathFields(m.Type().In(i), map[reflect.Type]bool{})...)
			}
			if len(why) > 0 {
				t.Errorf("%s is listed as taking no path but takes %s: give it an attack in pathAttacks", name, strings.Join(why, ", "))
			}
		}
	}
	for name := range pathAttacks {
		if _, ok := bindable(a)[name]; !ok {
			t.Errorf("pathAttacks lists %s, which is not a bound method", name)
		}
	}

	secret := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(secret, []byte("root:TOPSECRET-hash:19000::::::\n"), 0o600)
	for name, attack := range pathAttacks {
		t.Run(name, func(t *testing.T) {
			for _, p := range []string{secret, "/etc/shadow"} {
				res, err := attack(a, p)
				if err == nil {
					t.Fatalf("%s(%s) was allowed: %+v", name, p, res)
				}
				if !refusal.MatchString(err.Error()) {
					t.Fatalf("%s(%s) failed, but not by the rule (it went on to use the file): %v", name, p, err)
				}
				out, _ := json.Marshal(res)
				if strings.Contains(string(out)+err.Error(), "TOPSECRET") {
					t.Fatalf("%s(%s) gave the secret back: %s %v", name, p, out, err)
				}
			}
		})
	}
	// Nothing was copied into rehome's knowledge library.
	if entries, _ := os.ReadDir(filepath.Join(a.cfg.DataDir, assistant.KnowledgeDir)); len(entries) != 0 {
		t.Fatalf("a refused call put %d file(s) in the knowledge library", len(entries))
	}
}

// bindable returns the methods of *App the UI may call: the ones Calls
// reaches, the door the window binds and the bridge serves.
func bindable(a *App) map[string]reflect.Value { return NewCalls(a).methods }
