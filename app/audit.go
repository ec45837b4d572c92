package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/core"
)

// audits returns the audit service over the App's store.
func (a *App) audits() (*core.Audits, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.core.Audits(), nil
}

// RunAudit audits stored assistants or hand-ticked features on this
// machine (or on memory given by hand) and stores the audit. Without VRAM
// and without detection it answers an error asking for it.
func (svc *AuditService) RunAudit(req audit.Request) (audit.Record, error) {
	a := svc.app
	s, err := a.audits()
	if err != nil {
		return audit.Record{}, err
	}
	ctx, cancel := context.WithTimeout(a.ctx, detectTimeout)
	defer cancel()
	rec, err := s.Run(ctx, req)
	if err != nil {
		return audit.Record{}, uiError(err)
	}
	a.log.Info("audit", "id", rec.ID, "assistants", len(rec.Assistants), "summary", rec.Summary.Headline)
	return rec, nil
}

// Audits lists the stored audits, newest first.
func (svc *AuditService) Audits() ([]audit.Record, error) {
	a := svc.app
	s, err := a.audits()
	if err != nil {
		return nil, err
	}
	return s.List(0)
}

// GetAudit returns one stored audit.
func (svc *AuditService) GetAudit(id string) (audit.Record, error) {
	a := svc.app
	s, err := a.audits()
	if err != nil {
		return audit.Record{}, err
	}
	return s.Get(id)
}

// DeleteAudit removes a stored audit.
func (svc *AuditService) DeleteAudit(id string) error {
	a := svc.app
	s, err := a.audits()
	if err != nil {
		return err
	}
	return s.Delete(id)
}

// CompareAudits says what changed between two stored audits, and why.
func (svc *AuditService) CompareAudits(first, second string) (audit.Comparison, error) {
	a := svc.app
	s, err := a.audits()
	if err != nil {
		return audit.Comparison{}, err
	}
	return s.Compare(first, second)
}

// AuditCatalog returns the rules the audit applies: every capability with
// its default answer and the conditions that change it.
func (svc *AuditService) AuditCatalog() *audit.Catalog {
	return audit.DefaultCatalog()
}

// Checklist returns the steps to move an assistant, from its latest audit.
func (svc *AuditService) Checklist(assistantID string) (audit.Checklist, error) {
	a := svc.app
	s, err := a.audits()
	if err != nil {
		return audit.Checklist{}, err
	}
	c, err := s.Checklist(assistantID)
	return c, uiError(err)
}

// AssistantImport is what the import form sends: a GPT's JSON description,
// or the path of a rehome bundle, and the paths of knowledge files to
// attach (dropped on the window, or uploaded in a browser).
type AssistantImport struct {
	JSON      string   `json:"json"`
	Bundle    string   `json:"bundle"`
	Knowledge []string `json:"knowledge"`
}

// ImportAssistant stores an assistant from a JSON description (knowledge
// files the user gave rehome copied into <data>/knowledge; paths the JSON
// names are never taken) or from a bundle (its files written there).
func (svc *AuditService) ImportAssistant(in AssistantImport) (_ assistant.Imported, err error) {
	a := svc.app
	defer a.guard("ImportAssistant", &err)
	if err := a.ready(); err != nil {
		return assistant.Imported{}, err
	}
	for i, p := range in.Knowledge {
		if !filepath.IsAbs(p) {
			return assistant.Imported{}, fmt.Errorf("%s is not a full path: drop or pick the file again", p)
		}
		var err error
		if in.Knowledge[i], err = a.readable(p); err != nil {
			return assistant.Imported{}, err
		}
	}
	var imp assistant.Imported
	switch {
	case in.Bundle != "" && in.JSON != "":
		return assistant.Imported{}, errors.New("give either a JSON description or a bundle, not both")
	case in.Bundle != "":
		if !filepath.IsAbs(in.Bundle) {
			return assistant.Imported{}, fmt.Errorf("%s is not a full path: drop or pick the bundle again", in.Bundle)
		}
		if in.Bundle, err = a.readable(in.Bundle); err != nil {
			return assistant.Imported{}, err
		}
		imp, err = a.core.Assistants().ImportBundleFile(in.Bundle, in.Knowledge)
	default:
		imp, err = a.core.Assistants().Import([]byte(in.JSON), assistant.ImportOptions{Knowledge: in.Knowledge})
	}
	if err == nil {
		a.log.Info("assistant imported", "id", imp.Assistant.ID, "knowledge", len(imp.Assistant.Knowledge), "warnings", len(imp.Warnings))
	}
	return imp, err
}

// ImportAssistants is ImportAssistant for a JSON file that may list several
// assistants (the Assistants API's `GET /v1/assistants` response): each is
// imported on its own and the report says, per assistant, what was
// imported and what was not. A bundle or a single object is one item.
func (svc *AuditService) ImportAssistants(in AssistantImport) (_ assistant.ImportReport, err error) {
	a := svc.app
	defer a.guard("ImportAssistants", &err)
	if err := a.ready(); err != nil {
		return assistant.ImportReport{}, err
	}
	if in.Bundle != "" {
		imp, err := a.ImportAssistant(in)
		if err != nil {
			return assistant.ImportReport{}, err
		}
		return assistant.ImportReport{Items: []assistant.ImportItem{{Name: imp.Assistant.Name, Imported: true, Assistant: &imp.Assistant, Warnings: imp.Warnings}}, Imported: 1, Notes: []string{}}, nil
	}
	for i, p := range in.Knowledge {
		var err error
		if in.Knowledge[i], err = a.readable(p); err != nil {
			return assistant.ImportReport{}, err
		}
	}
	rep, err := a.core.ImportJSON([]byte(in.JSON), in.Knowledge)
	if err == nil {
		a.log.Info("assistants imported", "imported", rep.Imported, "failed", rep.Failed, "list", rep.List)
	}
	return rep, err
}

// AssistantExport is one export: the text of a Modelfile or Open WebUI
// JSON, or the path of a written bundle, and what the user should know.
type AssistantExport struct {
	Format   string   `json:"format"`
	FileName string   `json:"file_name"`
	Content  string   `json:"content,omitempty"`
	Path     string   `json:"path,omitempty"`
	Warnings []string `json:"warnings"`
}

// ExportAssistant exports an assistant as "modelfile" or "openwebui" (for
// the local model named by model; "" takes its latest audit's) or as a
// "bundle", written to a folder of its own under <data>/uploads so the UI
// can offer it for download. It is `rehome assistants export`'s method of
// the core: the same model choice, the same atomic write.
func (svc *AuditService) ExportAssistant(id, format, model string) (AssistantExport, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return AssistantExport{}, err
	}
	as, err := a.core.Assistants().Get(id)
	if err != nil {
		return AssistantExport{}, err
	}
	slug := assistant.Slug(as.Name)
	req := core.ExportRequest{ID: id, Format: format, Options: assistant.ExportOptions{Model: model}}
	out := AssistantExport{Format: format}
	switch format {
	case "modelfile":
		out.FileName = slug + ".Modelfile"
	case "openwebui":
		out.FileName = slug + ".openwebui.json"
	case "bundle":
		out.FileName = slug + ".rehome.tar.gz"
		dir := filepath.Join(a.cfg.DataDir, UploadsDir, NewUploadID())
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return AssistantExport{}, err
		}
		req.Path = filepath.Join(dir, out.FileName)
		defer func() {
			if err != nil {
				os.RemoveAll(dir)
			}
		}()
	}
	x, err := a.core.Export(req)
	if err != nil {
		return AssistantExport{}, uiError(err)
	}
	out.Content, out.Path, out.Warnings = x.Content, x.Path, x.Warnings
	return out, nil
}
