package app

// The bound services, one per area of the UI, as tiny-rdm binds its
// services: each is a thin type over the shared App state (its
// core, its log, the asks and runs under way), and each exported method of
// one is a call the page makes. Method names are unique across them, so
// the page calls a method by name alone (api.ListAssistants(...)) and the
// bridge's /api/call/{method} route stays as it was; Calls (calls.go) is
// the one door to all of them, with the guard on every method.

// AssistantService holds the assistants, their editor (pictures, schemas, the
// preview) and the ChatGPT import (assistants.go, assistant_editor.go,
// gptimport.go).
type AssistantService struct{ app *App }

// ActionService holds an assistant's actions, their sign-in and the user's
// answers to their calls (actions.go).
type ActionService struct{ app *App }

// KnowledgeService holds an assistant's knowledge files and the offline
// libraries (knowledge.go, browse.go).
type KnowledgeService struct{ app *App }

// AuditService holds the audits, the checklist and the assistants' import and
// export (audit.go).
type AuditService struct{ app *App }

// ModelService holds the hardware, the model catalog and its fit, the carried
// models, pulls, model servers and model settings (hardware.go,
// carried.go, pull.go, servers.go, modelsettings.go).
type ModelService struct{ app *App }

// RunService holds code runs, sessions, the canvas, run limits and the sandbox
// host (sandbox.go, session.go, canvas.go, limits.go, teamhost.go).
type RunService struct{ app *App }

// AskService holds asking, the conversations and their export, and memory
// (ask.go, conversations.go, export_save.go, memory.go).
type AskService struct{ app *App }

// SystemService holds status, dialogs, files, a pasted image, the first
// run's checklist, backups and MCP servers (app.go, dialogs.go, files.go,
// paste.go, firstrun.go, backup.go, mcp.go).
type SystemService struct{ app *App }

// bindServices gives a its services; an App made as a literal (a test's
// &App{}) gets them when its Calls are made.
func (a *App) bindServices() {
	bind(&a.AssistantService, &AssistantService{a})
	bind(&a.ActionService, &ActionService{a})
	bind(&a.KnowledgeService, &KnowledgeService{a})
	bind(&a.AuditService, &AuditService{a})
	bind(&a.ModelService, &ModelService{a})
	bind(&a.RunService, &RunService{a})
	bind(&a.AskService, &AskService{a})
	bind(&a.SystemService, &SystemService{a})
}

// bind sets *p to s unless it is set already.
func bind[S any](p **S, s *S) {
	if *p == nil {
		*p = s
	}
}

// Services are a's bound services by name, in the order tsgen lists them.
func (a *App) services() []service {
	a.bindServices()
	return []service{
		{"AssistantService", a.AssistantService},
		{"ActionService", a.ActionService},
		{"KnowledgeService", a.KnowledgeService},
		{"AuditService", a.AuditService},
		{"ModelService", a.ModelService},
		{"RunService", a.RunService},
		{"AskService", a.AskService},
		{"SystemService", a.SystemService},
	}
}

type service struct {
	name string
	v    any
}
