package core

import (
	"context"
	"time"

	"rehome/backend/llm"
	"rehome/backend/store"
	"rehome/sandbox"
	"rehome/sandbox/link"
)

// The domain's types, values and helpers that the faces take and give,
// named here so that a face imports core and not the sandbox, the store or
// the model loop (issue 30). Each is an alias: the very type, with its
// JSON and its methods, so the window's generated types do not change.

// The sandbox's: runs, sessions, limits, the image and the self-test.
type (
	// Limits are a run's or a session's ceilings (sandbox.Limits).
	Limits = sandbox.Limits
	// LimitBounds is the range each limit may be set within on this machine.
	LimitBounds = sandbox.LimitBounds
	// LimitStatus says how one limit was enforced in a run.
	LimitStatus = sandbox.LimitStatus
	// RunRequest is one run of code against files.
	RunRequest = sandbox.RunRequest
	// RunResult is what a run printed, wrote and how its limits held.
	RunResult = sandbox.Result
	// RunRecord is a run as it is stored.
	RunRecord = sandbox.Record
	// Progress is a step of a run or a cell, as it happens.
	Progress = sandbox.Progress
	// Engine is the sandbox engine over one Podman service.
	Engine = sandbox.Engine
	// SandboxOptions configure an Engine (the Podman service, the image).
	SandboxOptions = sandbox.Options
	// ConnectOptions choose the Podman service (a team host's too).
	ConnectOptions = link.ConnectOptions
	// HostKey is a team host's key, as scanned or trusted.
	HostKey = link.HostKey
	// Session is a running Code Interpreter session.
	Session = sandbox.Session
	// SessionInfo describes a session.
	SessionInfo = sandbox.SessionInfo
	// SessionRequest starts a session.
	SessionRequest = sandbox.SessionRequest
	// CellResult is what one cell of a session gave.
	CellResult = sandbox.CellResult
	// Display is a rich output of a cell (a plot, a table).
	Display = sandbox.Display
	// SandboxStatus describes the engine, or why it did not start.
	SandboxStatus = sandbox.Status
	// DoctorReport is the sandbox's self-test.
	DoctorReport = sandbox.DoctorReport
	// BuildReport is what an image build did.
	BuildReport = sandbox.BuildReport
)

const (
	// Held is a limit enforced by the kernel and seen to be.
	Held = sandbox.Held
	// MaxScriptSize is the largest script the sandbox takes.
	MaxScriptSize = sandbox.MaxScriptSize
	// DefaultIdleTimeout ends a session no cell has used for that long.
	DefaultIdleTimeout = sandbox.DefaultIdleTimeout
)

// DefaultLimits are the sandbox's limits when nothing else is asked for.
var DefaultLimits = sandbox.DefaultLimits

// NewRunID returns a new run or session id (time-sortable).
func NewRunID() string { return sandbox.NewRunID() }

// SessionDir is the folder of session id under the data folder dataDir.
func SessionDir(dataDir, id string) string { return sandbox.SessionDir(dataDir, id) }

// OpenSession reaches a running session from its folder, through the relay
// of the process that started it.
func OpenSession(ctx context.Context, dir string) (*Session, error) {
	return sandbox.OpenSession(ctx, dir)
}

// StatusOf describes an engine, or the error that kept it from starting.
func StatusOf(ctx context.Context, e *Engine, startErr error) SandboxStatus {
	return sandbox.StatusOf(ctx, e, startErr)
}

// NoPodmanReport is the self-test's report when Podman cannot be reached.
func NoPodmanReport(err error) DoctorReport { return sandbox.NoPodmanReport(err) }

// PackagedImageArchive is the image archive the rehome-sandbox-image
// package ships, "" when it is not installed.
func PackagedImageArchive() string { return sandbox.PackagedImageArchive() }

// ArchiveName is the file name of this recipe's image archive.
func ArchiveName() string { return sandbox.ArchiveName() }

// CacheDir is where rehome keeps the image archive and probe results.
func CacheDir() string { return sandbox.CacheDir() }

// EnableSocket enables and starts the user's podman.socket.
func EnableSocket(ctx context.Context) error { return sandbox.EnableSocket(ctx) }

// ExpandHome turns a leading ~/ of a path the user typed into their home.
func ExpandHome(p string) string { return link.ExpandHome(p) }

// The model loop's: answers, conversations, model servers.
type (
	// Conversation is a stored conversation with its turns.
	Conversation = llm.Conversation
	// ConversationSummary is a conversation in a list.
	ConversationSummary = llm.ConversationSummary
	// Transcript is one answer: its turns, cells and citations.
	Transcript = llm.Transcript
	// Event is a step of an answer as it streams.
	Event = llm.Event
	// Cell is a cell the model ran in an answer.
	Cell = llm.Cell
	// AnswerCellResult is a cell's result as the model loop reports it.
	AnswerCellResult = llm.CellResult
	// Server is a model server and the models it serves.
	Server = llm.Server
	// ServerPrefs are the model servers the user chose.
	ServerPrefs = llm.ServerPrefs
	// PullProgress is a model pull's progress.
	PullProgress = llm.PullProgress
	// Tools says whether a model calls tools.
	Tools = llm.Tools
)

const (
	// ModeAuto offers the python tool and falls back to fenced blocks.
	ModeAuto = llm.ModeAuto
	// ModeTools offers the python tool only.
	ModeTools = llm.ModeTools
	// ModeFenced runs ```python blocks only.
	ModeFenced = llm.ModeFenced
	// ToolsYes: the model calls tools.
	ToolsYes = llm.ToolsYes
	// ToolsNo: the model does not call tools.
	ToolsNo = llm.ToolsNo
	// ToolsUnknown: not known yet whether the model calls tools.
	ToolsUnknown = llm.ToolsUnknown
	// StopAnswered: the model answered.
	StopAnswered = llm.StopAnswered
	// StopMaxSteps: the bound on code runs was reached.
	StopMaxSteps = llm.StopMaxSteps
	// DefaultMaxSteps bounds the code runs of one question.
	DefaultMaxSteps = llm.DefaultMaxSteps
	// DefaultDeadline bounds one answer of the model server.
	DefaultDeadline time.Duration = llm.DefaultDeadline
)

// StartHint says how to start a model server (suggested: a model to name).
func StartHint(suggested string) string { return llm.StartHint(suggested) }

// NoServerHint says where rehome looked for a model server and how to start one.
func NoServerHint(suggested string) string { return llm.NoServerHint(suggested) }

// SourcesMarkdown lists an answer's citations as a Markdown block.
func SourcesMarkdown(cs []llm.Citation) string { return llm.SourcesMarkdown(cs) }

// NormalizeBaseURL turns what a user types for a server into its base URL.
func NormalizeBaseURL(raw string) (string, error) { return llm.NormalizeBaseURL(raw) }

// The store's.

// DefaultDataDir is rehome's data folder: $REHOME_HOME, else
// $XDG_DATA_HOME/rehome, else ~/.local/share/rehome.
func DefaultDataDir() (string, error) { return store.DataDir() }

// NewID returns a new record id (time-sortable).
func NewID() string { return store.NewID() }
