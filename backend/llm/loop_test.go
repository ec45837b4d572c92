package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rehome/internal/testsupport/llmtest"
)

// salesCode is the code the recorded models write (gen.py's CODE).
const salesCode = "import pandas as pd\n" +
	"import matplotlib.pyplot as plt\n" +
	"df = pd.read_csv('/mnt/data/sales.csv')\n" +
	"g = df.groupby('region')['revenue'].sum().sort_values()\n" +
	"print(g.to_string())\n" +
	"g.plot.bar(title='Revenue by region')\n" +
	"plt.show()\n"

const salesAnswer = "South had the most revenue: 230.0."

var salesResult = CellResult{ExitCode: 0, Stdout: "region\nEast     201.0\nNorth    219.5\nSouth    230.0\n",
	Files: []OutFile{{Name: "plot-001.png", Kind: "plot", Size: 1234, Path: "/tmp/x/plot-001.png"}}}

func newLoop(t *testing.T, r *replay, ex Executor, model string) (*Loop, *[]Event) {
	t.Helper()
	fi, err := DescribeFile("testdata/sales.csv")
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	return &Loop{Client: &Client{BaseURL: r.base()}, Model: model, Instructions: "You are Sales Analyst.",
		Files: []FileInfo{fi}, Exec: ex, Stateless: true, OnEvent: func(e Event) { evs = append(evs, e) }}, &evs
}

func ask(t *testing.T, l *Loop, q string) *Transcript {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return l.Ask(ctx, q)
}

// Each recorded server shape, one python call then an answer.
func TestLoopRecordedServers(t *testing.T) {
	for _, tc := range []struct {
		scenario, model, mode, via string
		requests                   int
		reasoning                  string
	}{
		{"ollama-tools", "qwen2.5:7b", ModeTools, "tool_call", 2, ""},
		{"llama-server-fragments", "qwen2.5-7b-instruct-q4_k_m.gguf", ModeTools, "tool_call", 2, "The totals are printed; ```python\nprint('never run: this is thinking')\n```"},
		{"lmstudio", "qwen2.5-7b-instruct", ModeTools, "tool_call", 2, ""},
		{"object-args", "m", ModeTools, "tool_call", 2, ""},
		{"ollama-no-tools", "gemma2:2b", ModeFenced, "fenced", 3, ""},
		{"llama-server-error", "qwen2.5-7b-instruct-q4_k_m.gguf", ModeFenced, "fenced", 3, ""},
		// A model without tool calling, asked in fenced mode (with the
		// tool offered, only a tool call runs code).
		{"think", "deepseek-r1:7b", ModeFenced, "fenced", 2, "done"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			r := newReplay(t, tc.scenario)
			ex := &fakeExec{res: salesResult}
			l, evs := newLoop(t, r, ex, tc.model)
			if tc.scenario == "think" {
				l.Mode = ModeFenced
			}
			tr := ask(t, l, "Which region had the most revenue?")
			if tr.Stopped != StopAnswered {
				t.Fatalf("stopped %q (%s %s), want answered", tr.Stopped, tr.Note, tr.Error)
			}
			if !strings.HasPrefix(tr.Answer, salesAnswer) {
				t.Errorf("answer %q", tr.Answer)
			}
			if len(ex.codes) != 1 || strings.TrimRight(ex.codes[0], "\n") != strings.TrimRight(salesCode, "\n") {
				t.Fatalf("ran %q, want the recorded code once", ex.codes)
			}
			if tr.Mode != tc.mode {
				t.Errorf("mode %q, want %q", tr.Mode, tc.mode)
			}
			cells := tr.Cells()
			if len(cells) != 1 || cells[0].Via != tc.via || cells[0].Result.Files[0].Kind != "plot" {
				t.Fatalf("cells %+v", cells)
			}
			if !strings.Contains(cells[0].Fed, "South    230.0") || !strings.Contains(cells[0].Fed, "shown to the user") {
				t.Errorf("fed %q", cells[0].Fed)
			}
			// The plot is attached to the transcript where it was made.
			if len(tr.Files) != 1 || tr.Files[0].Name != "plot-001.png" {
				t.Errorf("files %+v", tr.Files)
			}
			if got := tr.Turns[len(tr.Turns)-1].Reasoning; got != tc.reasoning {
				t.Errorf("reasoning %q, want %q", got, tc.reasoning)
			}
			reqs := r.requests()
			if len(reqs) != tc.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tc.requests)
			}
			last := reqs[len(reqs)-1]
			sys := last.Messages[0]
			if sys.Role != "system" || !strings.HasPrefix(sys.Content, "You are Sales Analyst.") ||
				!strings.Contains(sys.Content, "/mnt/data/sales.csv (") || !strings.Contains(sys.Content, "revenue (float)") {
				t.Errorf("system prompt:\n%s", sys.Content)
			}
			if tc.mode == ModeTools && (len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "python") {
				t.Errorf("tools %+v", reqs[0].Tools)
			}
			if tc.via == "tool_call" {
				if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "python" {
					t.Errorf("tools %+v", reqs[0].Tools)
				}
				tool := last.Messages[len(last.Messages)-1]
				call := last.Messages[len(last.Messages)-2]
				if tool.Role != "tool" || tool.ToolCallID == "" || tool.ToolCallID != call.ToolCalls[0].ID || !strings.Contains(tool.Content, "230.0") {
					t.Errorf("tool result %+v after %+v", tool, call)
				}
				if call.ToolCalls[0].Function.Arguments == "" || !strings.Contains(call.ToolCalls[0].Function.Arguments, "read_csv") {
					t.Errorf("the call sent back %+v", call.ToolCalls[0])
				}
			} else {
				if tc.mode == ModeFenced && (len(last.Tools) != 0 || strings.Contains(last.Messages[0].Content, "You have a tool")) {
					t.Errorf("fenced mode still offers tools")
				}
				fb := last.Messages[len(last.Messages)-1]
				if fb.Role != "user" || !strings.Contains(fb.Content, "Output of the code") || !strings.Contains(fb.Content, "230.0") {
					t.Errorf("feedback %+v", fb)
				}
			}
			// Tokens streamed as events, in order, ending with done.
			var text strings.Builder
			for _, e := range *evs {
				if e.Type == "token" && e.Turn == len(tr.Turns)-1 {
					text.WriteString(e.Text)
				}
			}
			if !strings.HasPrefix(text.String(), salesAnswer) {
				t.Errorf("streamed %q", text.String())
			}
			if (*evs)[len(*evs)-1].Type != "done" {
				t.Errorf("last event %+v", (*evs)[len(*evs)-1])
			}
		})
	}
}

func TestLoopStopsOnRepeatedCode(t *testing.T) {
	r := newReplay(t, "loop")
	ex := &fakeExec{res: salesResult}
	l, _ := newLoop(t, r, ex, "qwen2.5:7b")
	tr := ask(t, l, "Which region had the most revenue?")
	if tr.Stopped != StopLoop || !strings.Contains(tr.Note, "same code again") {
		t.Fatalf("stopped %q %q", tr.Stopped, tr.Note)
	}
	if len(ex.codes) != 1 {
		t.Errorf("ran %d times, want once", len(ex.codes))
	}
}

func TestLoopDroppedServer(t *testing.T) {
	r := newReplay(t, "drop")
	l, _ := newLoop(t, r, &fakeExec{}, "qwen2.5:7b")
	tr := ask(t, l, "Which region had the most revenue?")
	if tr.Stopped != StopError || !strings.Contains(tr.Error, "closed the connection") {
		t.Fatalf("stopped %q error %q", tr.Stopped, tr.Error)
	}
	if tr.Answer != "South had" {
		t.Errorf("partial answer %q", tr.Answer)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	r := newReplay(t, "lmstudio-error")
	c := &Client{BaseURL: r.base()}
	rep, err := c.ChatStream(context.Background(), ChatRequest{Model: "m"}, nil)
	var se *ServerError
	if !errors.As(err, &se) || se.Message != "Compute error." || se.Status != 0 {
		t.Fatalf("err %v", err)
	}
	if rep.Message.Content != "South" {
		t.Errorf("partial %q", rep.Message.Content)
	}
	// llama-server's `error:` line.
	r2 := newReplay(t, "llama-server-error")
	_, err = (&Client{BaseURL: r2.base()}).ChatStream(context.Background(), ChatRequest{Model: "m"}, nil)
	if !errors.As(err, &se) || !strings.HasPrefix(se.Message, "Failed to parse input") {
		t.Fatalf("err %v", err)
	}
}

func TestLoopMaxSteps(t *testing.T) {
	r := newReplay(t, "ollama-tools")
	ex := &fakeExec{res: salesResult}
	l, _ := newLoop(t, r, ex, "qwen2.5:7b")
	l.MaxSteps = 1
	tr := ask(t, l, "q")
	// one run allowed: the second request has no tools and says so.
	reqs := r.requests()
	if tr.Stopped != StopAnswered || len(reqs) != 2 || len(reqs[1].Tools) != 0 ||
		!strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "last of the 1 code runs") {
		t.Fatalf("stopped %q, %d requests", tr.Stopped, len(reqs))
	}
}

func TestLoopCancel(t *testing.T) {
	r := newReplay(t, "ollama-tools")
	ctx, cancel := context.WithCancel(context.Background())
	ex := execFunc(func(ctx context.Context, code string) (CellResult, error) {
		cancel()
		<-ctx.Done()
		return CellResult{}, ctx.Err()
	})
	l, _ := newLoop(t, r, ex, "qwen2.5:7b")
	tr := l.Ask(ctx, "q")
	if tr.Stopped != StopCanceled {
		t.Fatalf("stopped %q", tr.Stopped)
	}
	if len(r.requests()) != 1 {
		t.Errorf("%d requests after Stop", len(r.requests()))
	}
}

type execFunc func(ctx context.Context, code string) (CellResult, error)

func (f execFunc) Exec(ctx context.Context, code string) (CellResult, error) { return f(ctx, code) }

// Only a tool call runs code where the model was given the tool: a
// python example ending a tool-calling model's answer is shown, not run,
// and the answer is not asked again. In fenced mode, a block quoted in a
// blockquote or shown inside a longer fence is not run either.
func TestFenceRunsOnlyInFencedMode(t *testing.T) {
	r := llmtest.Replay(t, "testdata", "tools-example-answer")
	ex := &fakeExec{res: salesResult}
	l := &Loop{Client: &Client{BaseURL: r.Base()}, Model: "qwen2.5:7b", Exec: ex, Mode: ModeAuto}
	tr := ask(t, l, "Which region had the most revenue?")
	if tr.Stopped != StopAnswered || len(ex.codes) != 1 || len(r.Bodies()) != 2 || !strings.HasSuffix(strings.TrimSpace(tr.Answer), "```") {
		t.Fatalf("tools: stopped %q (%s %s), ran %d cells, %d requests, answer %q", tr.Stopped, tr.Note, tr.Error, len(ex.codes), len(r.Bodies()), tr.Answer)
	}
	for _, q := range []string{"blockquote", "longer fence"} {
		r := llmtest.Replay(t, "testdata", "fenced-quoted")
		ex := &fakeExec{res: salesResult}
		l := &Loop{Client: &Client{BaseURL: r.Base()}, Model: "gemma2:2b", Exec: ex, Mode: ModeFenced}
		tr := ask(t, l, "Which region had the most revenue?")
		if q == "longer fence" {
			tr = ask(t, l, "And second?")
		}
		if tr.Stopped != StopAnswered || len(ex.codes) != 0 {
			t.Fatalf("fenced, %s: stopped %q (%s %s), ran %q", q, tr.Stopped, tr.Note, tr.Error, ex.codes)
		}
	}
}
