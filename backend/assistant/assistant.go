package assistant

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"rehome/backend/store"
	"rehome/backend/vision"
)

// SchemaVersion is the version of the Assistant record this build writes.
const SchemaVersion = 1

// Capability names a ChatGPT feature that a custom GPT can switch on.
type Capability string

// The capabilities a custom GPT can have.
const (
	WebBrowsing     Capability = "web_browsing"
	ImageGeneration Capability = "image_generation"
	CodeInterpreter Capability = "code_interpreter"
	Canvas          Capability = "canvas"
	Memory          Capability = "memory"
	Voice           Capability = "voice"
	Vision          Capability = "vision"
	FileUploads     Capability = "file_uploads"
	// Knowledge is file search (retrieval) switched on: the assistant
	// answers from files. It stays on when the files themselves did not
	// come along (see RemoteFiles).
	Knowledge Capability = "knowledge"
)

// Capabilities lists every known capability in display order.
var Capabilities = []Capability{WebBrowsing, ImageGeneration, CodeInterpreter, Canvas, Memory, Voice, Vision, FileUploads, Knowledge}

// KnowledgeFile references a file the GPT answers from: its name, size and
// SHA-256, and Path, rehome's own copy of it in the knowledge library
// (see Library), or "" when the file is not on this machine.
type KnowledgeFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Path   string `json:"path"`
}

// RemoteFile is a file the assistant uses that lives on OpenAI's servers
// and did not come with its description: it must be downloaded and
// attached before the capability that uses it works locally.
type RemoteFile struct {
	// Tool is the capability that uses it: code_interpreter or knowledge.
	Tool Capability `json:"tool"`
	// Kind is "file" (an OpenAI file id) or "vector_store" (a vector
	// store id, whose files are listed by OpenAI's API).
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// Type and Name are what ChatGPT's GPT record says of a knowledge
	// file (Kind "gpt_file"): its MIME type and, in the owner's view, its
	// name; either may be "".
	Type string `json:"type,omitempty"`
	Name string `json:"name,omitempty"`
	// Filled is the SHA-256 of the knowledge file the user brought for
	// it, "" while it is still to bring (see FillFileRefs).
	Filled string `json:"filled,omitempty"`
}

// GPTFile is the Kind of a RemoteFile that a ChatGPT GPT record lists in
// its files: a knowledge file to bring.
const GPTFile = "gpt_file"

// Action is a custom GPT action: an HTTP API described by OpenAPI (or an
// Assistants-API function tool, schema only). Its credentials are never
// here: rehome keeps them in an owner-only file of the data folder (see
// backend/actions), so this record, its bundles and exports hold none.
type Action struct {
	Schema     string `json:"schema"`      // OpenAPI document text (JSON or YAML)
	Auth       string `json:"auth"`        // "none", "api_key" or "oauth"
	PrivacyURL string `json:"privacy_url"` // the privacy policy the GPT links to
	// ID names the action's credentials; Name is how the user names it
	// (`rehome actions rm`). Both are set by `rehome actions add`; an
	// imported action has neither until then.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Signing says how an api_key is sent (basic, bearer, header) and the
	// header's name; OAuth is the OAuth client (no secret).
	Signing string       `json:"signing,omitempty"`
	Header  string       `json:"header,omitempty"`
	OAuth   *OAuthClient `json:"oauth,omitempty"`
	// AlwaysAllow lists the operations the user chose "Always allow" for.
	AlwaysAllow []string `json:"always_allow,omitempty"`
	// AllowLocal is the user's allowance for the action to reach this
	// machine and its networks (loopback, private, link-local, CGNAT,
	// unique-local, metadata addresses). It is given only on this machine
	// (`rehome actions add --allow-local`, `rehome actions allow-local`,
	// the editor's box): a record that comes from outside — an import, a
	// bundle, a page's whole record — never brings it (see
	// withoutAllowance).
	AllowLocal bool `json:"allow_local,omitempty"`
	// Domain is the host ChatGPT's record names for the action, and
	// Source ChatGPT's action id (g-…): a second import of the same GPT
	// updates this action, keeping its credentials.
	Domain string `json:"domain,omitempty"`
	Source string `json:"source,omitempty"`
}

// OAuthClient is an action's OAuth client as the GPT editor's form has
// it, less the client secret (kept with the credentials).
type OAuthClient struct {
	ClientID string `json:"client_id"`
	AuthURL  string `json:"auth_url"`
	TokenURL string `json:"token_url"`
	Scope    string `json:"scope,omitempty"`
	// PKCE and TokenExchange are the GPT editor's "PKCE required" and
	// token exchange method (basic_auth_header or default_post).
	PKCE          bool   `json:"pkce,omitempty"`
	TokenExchange string `json:"token_exchange,omitempty"`
}

// Assistant is one custom GPT as rehome remembers it.
type Assistant struct {
	Schema       int      `json:"schema"`
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Instructions string   `json:"instructions"`
	Starters     []string `json:"starters"`
	// WelcomeMessage is the GPT's greeting (display.welcome_message).
	WelcomeMessage string `json:"welcome_message,omitempty"`
	// GizmoID is the GPT's id on ChatGPT (g-…), "" for an assistant that
	// did not come from ChatGPT: a second import of the GPT updates this
	// assistant, and its conversations from ChatGPT's export file here.
	GizmoID      string          `json:"gizmo_id,omitempty"`
	Knowledge    []KnowledgeFile `json:"knowledge"`
	Capabilities []Capability    `json:"capabilities"`
	Actions      []Action        `json:"actions"`
	// RemoteFiles are the files it uses that are still on OpenAI's
	// servers.
	RemoteFiles []RemoteFile `json:"remote_files"`
	Notes       string       `json:"notes"`
	// Model is the model to ask with by default, as a model server names
	// it (an Ollama tag such as qwen2.5:7b); "" lets rehome choose. Older
	// records, without it, load as "".
	Model string `json:"model,omitempty"`
	// Picture is its picture as a PNG or JPEG data: URL, at most
	// vision.PictureSide on a side (see vision.Picture), "" for none.
	Picture string    `json:"picture,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Limits on what an assistant may hold, matching ChatGPT's own.
const (
	MaxName         = 200
	MaxInstructions = 256 * 1024
	MaxStarters     = 32
	MaxWelcome      = 4096
)

// Normalize trims text fields, drops empty starters, de-duplicates
// capabilities and fills nil slices so the JSON is stable.
func (a *Assistant) Normalize() {
	a.Name = strings.TrimSpace(a.Name)
	a.Description = strings.TrimSpace(a.Description)
	a.Model = strings.TrimSpace(a.Model)
	starters := []string{}
	for _, s := range a.Starters {
		if s = strings.TrimSpace(s); s != "" {
			starters = append(starters, s)
		}
	}
	a.Starters = starters
	caps := []Capability{}
	for _, c := range a.Capabilities {
		c = Capability(strings.TrimSpace(strings.ToLower(string(c))))
		if c != "" && !slices.Contains(caps, c) {
			caps = append(caps, c)
		}
	}
	a.Capabilities = caps
	if a.Knowledge == nil {
		a.Knowledge = []KnowledgeFile{}
	}
	if a.Actions == nil {
		a.Actions = []Action{}
	}
	if a.RemoteFiles == nil {
		a.RemoteFiles = []RemoteFile{}
	}
	a.WelcomeMessage = strings.TrimSpace(a.WelcomeMessage)
	a.GizmoID = strings.TrimSpace(a.GizmoID)
	FillFileRefs(a)
}

// Validate reports the first problem with a, naming the field and the fix.
func (a *Assistant) Validate() error {
	switch {
	case a.Name == "":
		return fmt.Errorf("%w: name is empty: give the assistant a name", ErrInvalid)
	case utf8.RuneCountInString(a.Name) > MaxName:
		return fmt.Errorf("%w: name is longer than %d characters", ErrInvalid, MaxName)
	case !utf8.ValidString(a.Name + a.Description + a.Instructions + a.Notes):
		return fmt.Errorf("%w: text is not valid UTF-8", ErrInvalid)
	case len(a.Instructions) > MaxInstructions:
		return fmt.Errorf("%w: instructions are %d bytes, more than the %d allowed", ErrInvalid, len(a.Instructions), MaxInstructions)
	case len(a.Starters) > MaxStarters:
		return fmt.Errorf("%w: %d conversation starters, at most %d allowed", ErrInvalid, len(a.Starters), MaxStarters)
	case !utf8.ValidString(a.WelcomeMessage):
		return fmt.Errorf("%w: the welcome message is not valid UTF-8", ErrInvalid)
	case utf8.RuneCountInString(a.WelcomeMessage) > MaxWelcome:
		return fmt.Errorf("%w: the welcome message is longer than %d characters", ErrInvalid, MaxWelcome)
	}
	if err := vision.CheckPicture(a.Picture); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	for _, c := range a.Capabilities {
		if !slices.Contains(Capabilities, c) {
			return fmt.Errorf("%w: unknown capability %q (known: %s)", ErrInvalid, c, joinCaps(Capabilities))
		}
	}
	for i, k := range a.Knowledge {
		if k.Name == "" {
			return fmt.Errorf("%w: knowledge[%d] has no name", ErrInvalid, i)
		}
	}
	for i, ac := range a.Actions {
		switch ac.Auth {
		case "", "none", "api_key", "oauth":
		default:
			return fmt.Errorf("%w: actions[%d].auth is %q: use none, api_key or oauth", ErrInvalid, i, ac.Auth)
		}
	}
	return nil
}

func joinCaps(cs []Capability) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// Service stores and loads assistants.
type Service struct {
	st  *store.Store
	lib Library
	now func() time.Time
}

// NewService returns a Service over st whose knowledge files live in the
// library at knowledgeDir (normally <data>/knowledge, see KnowledgeDir).
func NewService(st *store.Store, knowledgeDir string) *Service {
	return &Service{st: st, lib: NewLibrary(knowledgeDir), now: time.Now}
}

// Library is where the service keeps its knowledge files.
func (s *Service) Library() Library { return s.lib }

// Create validates a, gives it an id and timestamps, stores it and returns
// the stored record.
func (s *Service) Create(a Assistant) (Assistant, error) {
	withoutAllowance(&a)
	a.Normalize()
	if err := a.Validate(); err != nil {
		return Assistant{}, err
	}
	if err := s.lib.checkKnowledge(a, nil); err != nil {
		return Assistant{}, err
	}
	a.Schema = SchemaVersion
	a.ID = store.NewID()
	now := s.now().UTC()
	a.Created, a.Updated = now, now
	if err := s.st.Put(store.Assistants, a.ID, a); err != nil {
		return Assistant{}, err
	}
	return a, nil
}

// Get returns the assistant with id. An assistant written by a newer
// rehome is refused with an error wrapping store.ErrNewer.
func (s *Service) Get(id string) (Assistant, error) {
	var a Assistant
	if err := s.st.Get(store.Assistants, id, &a); err != nil {
		return Assistant{}, err
	}
	if err := store.CheckSchema(store.Assistants, id, a.Schema, SchemaVersion); err != nil {
		return Assistant{}, err
	}
	return a, nil
}

// List returns all assistants, newest first.
func (s *Service) List() ([]Assistant, error) {
	return store.List[Assistant](s.st, store.Assistants, 0)
}

// Update replaces the stored assistant a.ID with a, keeping its creation
// time, and returns the stored record.
func (s *Service) Update(a Assistant) (Assistant, error) {
	return s.Edit(a.ID, func(old *Assistant) error {
		created := old.Created
		keepAllowance(&a, old)
		*old = a
		old.Created = created
		return nil
	})
}

// Edit changes the stored assistant id with fn, which is given the stored
// record, and returns the record stored. Reading, fn and writing happen in
// one transaction, so concurrent edits of one assistant (of different
// fields, or appending to the same list) are applied one after the other
// and none is lost. The id and creation time stay as they were; the record
// is normalized and validated after fn. An assistant written by a newer
// rehome is refused (store.ErrNewer) and left as it is.
func (s *Service) Edit(id string, fn func(*Assistant) error) (Assistant, error) {
	var a Assistant
	err := s.st.Modify(store.Assistants, id, &a, func() error {
		if err := store.CheckSchema(store.Assistants, id, a.Schema, SchemaVersion); err != nil {
			return err
		}
		created := a.Created
		old := slices.Clone(a.Knowledge)
		if err := fn(&a); err != nil {
			return err
		}
		a.Normalize()
		if err := a.Validate(); err != nil {
			return err
		}
		if err := s.lib.checkKnowledge(a, old); err != nil {
			return err
		}
		a.ID, a.Created = id, created
		a.Schema = SchemaVersion
		a.Updated = s.now().UTC()
		return nil
	})
	if err != nil {
		return Assistant{}, err
	}
	return a, nil
}

// Delete removes the assistant with id.
func (s *Service) Delete(id string) error {
	return s.st.Delete(store.Assistants, id)
}
