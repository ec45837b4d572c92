package sandbox

import "time"

// File is one output the code left in /mnt/data, or a plot it drew,
// saved on the host.
type File struct {
	// Name is its path relative to /mnt/data (plots: plot-001.png…).
	Name string `json:"name"`
	// Kind is "plot" for a figure captured as PNG, "file" otherwise.
	Kind   string `json:"kind"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Path is where rehome saved it.
	Path string `json:"path"`
	// DataURL is the plot as a data: URL, when the caller asked for it
	// (RunRequest.InlinePlots) to show it without touching the disk.
	DataURL string `json:"data_url,omitempty"`
}

// Skipped is an output that was refused, and why.
type Skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Strength grades how well a guarantee holds.
type Strength string

// The grades of a guarantee or a limit.
const (
	// Held: enforced by the kernel for the whole container, and seen to be.
	Held Strength = "held"
	// Weaker: enforced, but by a weaker mechanism (per-process rlimits, a
	// watchdog that samples) — the report says how.
	Weaker Strength = "weaker"
	// NotHeld: not enforced at all.
	NotHeld Strength = "not held"
)

// LimitStatus says what was asked for one limit and what holds it.
type LimitStatus struct {
	// Asked is the ceiling in plain words ("512 MiB", "30s", "1 core").
	Asked string `json:"asked"`
	// Value is the ceiling as a number in the limit's unit (bytes,
	// milliseconds, cores, processes, files).
	Value    float64  `json:"value"`
	Strength Strength `json:"strength"`
	// How names the mechanism and what was observed of it.
	How string `json:"how"`
}

// LimitsReport is the limits section of a Result.
type LimitsReport struct {
	Timeout     LimitStatus `json:"timeout"`
	Memory      LimitStatus `json:"memory"`
	CPU         LimitStatus `json:"cpu"`
	Pids        LimitStatus `json:"pids"`
	Stdout      LimitStatus `json:"stdout"`
	Stderr      LimitStatus `json:"stderr"`
	OutputFiles LimitStatus `json:"output_files"`
	OutputBytes LimitStatus `json:"output_bytes"`
	Tmp         LimitStatus `json:"tmp"`
}

// Result is what one run did.
type Result struct {
	// ID is the run's id (store.NewID style), also its record's key.
	ID string `json:"id"`
	// ExitCode is the code's exit status; 128+N when signal N ended it; -1
	// when it never finished (killed at the timeout, or refused).
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out"`
	// OOMKilled is true when the code was killed for using more memory than
	// its ceiling — by the kernel (seen in the cgroup's OOM-kill counter) or
	// by rehome's watchdog where the kernel cannot hold the ceiling.
	OOMKilled  bool   `json:"oom_killed"`
	DurationMS int64  `json:"duration_ms"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	// StdoutTruncated and StderrTruncated say the stream went past its cap;
	// only its first bytes are kept.
	StdoutTruncated bool         `json:"stdout_truncated"`
	StderrTruncated bool         `json:"stderr_truncated"`
	Files           []File       `json:"files"`
	Skipped         []Skipped    `json:"skipped,omitempty"`
	Limits          LimitsReport `json:"limits"`
	// Summary says in a sentence what happened, for the user.
	Summary string `json:"summary"`
	// ConnectionLost: the link to the team host dropped during the run;
	// what came back before is kept.
	ConnectionLost bool `json:"connection_lost,omitempty"`
	// Displays are the values the code showed, in order: the value of a
	// last bare expression (like a notebook cell's Out[n]) and what it
	// passed to display().
	Displays []Display `json:"displays,omitempty"`
	// Notes are further facts the user should know (a weaker limit, a
	// MemoryError, a broken output channel…).
	Notes []string `json:"notes,omitempty"`
	// Input is the file the code saw, by host path and in-sandbox path.
	Input *InputInfo `json:"input,omitempty"`
	// MemoryPeakBytes is the most memory the container used, when the
	// kernel or the watchdog measured it.
	MemoryPeakBytes int64 `json:"memory_peak_bytes,omitempty"`
	// OutputDir is where the files were saved.
	OutputDir string    `json:"output_dir,omitempty"`
	Started   time.Time `json:"started"`
	// Image and Runtime name what ran it.
	Image    string `json:"image"`
	Runtime  string `json:"runtime"`
	Rootless bool   `json:"rootless"`
}

// InputInfo names the dropped file.
type InputInfo struct {
	HostPath string `json:"host_path"`
	// Path is where the code sees it: /mnt/data/<name>.
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Renamed is set when the host name had characters a container path
	// cannot carry (newlines, bytes that are not UTF-8) and was adjusted.
	Renamed bool `json:"renamed,omitempty"`
}

// Display is one value the code showed, like a Jupyter output.
type Display struct {
	// Kind is "text" (a repr), "table" (a pandas DataFrame: Text is its
	// repr, Columns/Index/Rows its first rows and columns as strings) or
	// "image" (a figure passed to display(): File names the plot among
	// the Result's files).
	Kind    string     `json:"kind"`
	Text    string     `json:"text,omitempty"`
	Columns []string   `json:"columns,omitempty"`
	Index   []string   `json:"index,omitempty"`
	Rows    [][]string `json:"rows,omitempty"`
	// Shape is the whole table's [rows, columns].
	Shape []int  `json:"shape,omitempty"`
	File  string `json:"file,omitempty"`
	// Result marks the value of the last expression (Jupyter's
	// execute_result); the others came from display().
	Result bool `json:"result,omitempty"`
}
