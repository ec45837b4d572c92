#!/usr/bin/env python3
"""Writes the wire transcripts in this folder. Each scenario folder holds the
server's answers to successive POST /v1/chat/completions, in order:
NN.sse (text/event-stream), NN.json (application/json), NN-STATUS.json (an
error status). A .sse file whose last line is "#DROP" makes the test server
cut the TCP connection there. Chunk shapes follow the sources in README.md;
only the model's words and code are rehome's own. Run: python3 gen.py"""
import json, os

CODE = ("import pandas as pd\n"
        "import matplotlib.pyplot as plt\n"
        "df = pd.read_csv('/mnt/data/sales.csv')\n"
        "g = df.groupby('region')['revenue'].sum().sort_values()\n"
        "print(g.to_string())\n"
        "g.plot.bar(title='Revenue by region')\n"
        "plt.show()\n")
ANSWER = ["South", " had", " the", " most", " revenue", ":", " 230", ".", "0", "."]

def j(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False)

def write(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w", newline="") as f:
        f.write(text)

# --- Ollama /v1 (openai.go in ollama/ollama): every chunk carries id,
# object, created, model, system_fingerprint "fp_ollama"; a tool call comes
# whole in one chunk, arguments a JSON string, id "call_xxxxxxxx", index 0;
# then an empty delta with finish_reason "tool_calls"; then [DONE].
def goj(o):
    # Go's encoding/json escapes <, > and & in strings, as Ollama's output does.
    return j(o).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

def ollama(model, created, n, delta, finish=None):
    return "data: " + goj({"id": "chatcmpl-%d" % n, "object": "chat.completion.chunk", "created": created,
                         "model": model, "system_fingerprint": "fp_ollama",
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"

def ollama_answer(model, created, n, words, extra_first=None):
    s = ""
    for w in words:
        s += ollama(model, created, n, {"role": "assistant", "content": w})
    s += ollama(model, created, n, {"role": "assistant", "content": ""}, "stop")
    return s + "data: [DONE]\n\n"

m = "qwen2.5:7b"
s = ollama(m, 1744438886, 838, {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_hk81qg8b", "index": 0, "type": "function",
     "function": {"name": "python", "arguments": j({"code": CODE})}}]})
s += ollama(m, 1744438886, 838, {"role": "assistant", "content": ""}, "tool_calls")
s += "data: [DONE]\n\n"
write("ollama-tools", "01.sse", s)
write("ollama-tools", "02.sse", ollama_answer(m, 1744438890, 839, ANSWER))

# --- Ollama with a model without tools: 400 with OpenAI's error shape;
# then the fenced-code fallback; the final answer quotes the code it ran
# (a block followed by words: shown, never run again).
write("ollama-no-tools", "01-400.json", j({"error": {"message": "registry.ollama.ai/library/gemma2:2b does not support tools", "type": "api_error", "param": None, "code": None}}) + "\n")
m2 = "gemma2:2b"
fenced = "I will compute the totals per region.\n\n```python\n" + CODE + "```\n"
pieces = [fenced[i:i + 17] for i in range(0, len(fenced), 17)]
write("ollama-no-tools", "02.sse", ollama_answer(m2, 1744439000, 901, pieces))
final = ("South had the most revenue: 230.0. I used:\n\n```python\n" + CODE +
         "```\n\nThis sums the revenue column per region.")
write("ollama-no-tools", "03.sse", ollama_answer(m2, 1744439010, 902, [final[i:i + 23] for i in range(0, len(final), 23)]))

# --- llama-server (tools/server, chat with --jinja): first chunk role with
# content null; text may come before the call; the call streams in
# fragments: first with index, id, type, name and arguments "", then only
# index + function.arguments; the last chunk has an empty delta,
# finish_reason "tool_calls" and "timings"; then [DONE].
def ls(model, created, cid, delta, finish=None, timings=False):
    o = {"choices": [{"finish_reason": finish, "index": 0, "delta": delta}], "created": created,
         "id": cid, "model": model, "system_fingerprint": "b6531-80fb11ac", "object": "chat.completion.chunk"}
    if timings:
        o["timings"] = {"cache_n": 0, "prompt_n": 463, "prompt_ms": 62.703, "prompt_per_token_ms": 0.1354,
                        "prompt_per_second": 7384.01, "predicted_n": 20, "predicted_ms": 102.018,
                        "predicted_per_token_ms": 5.1009, "predicted_per_second": 196.04}
    return "data: " + j(o) + "\n\n"

m3 = "qwen2.5-7b-instruct-q4_k_m.gguf"
cid = "chatcmpl-v2dhF3kq9XQ0rJm1s8aLwYtZ"
s = ls(m3, 1758541572, cid, {"role": "assistant", "content": None})
for w in ["Let", " me", " check", "."]:
    s += ls(m3, 1758541572, cid, {"content": w})
s += ls(m3, 1758541572, cid, {"tool_calls": [{"index": 0, "id": "Qm7sV2xkTq1bNw8pLd3cRf0yHz9uJa4E", "type": "function", "function": {"name": "python", "arguments": ""}}]})
args = j({"code": CODE})
for i in range(0, len(args), 9):
    s += ls(m3, 1758541572, cid, {"tool_calls": [{"index": 0, "function": {"arguments": args[i:i + 9]}}]})
s += ls(m3, 1758541572, cid, {}, "tool_calls", timings=True)
s += "data: [DONE]\n\n"
write("llama-server-fragments", "01.sse", s)
# the answer of a reasoning model: reasoning_content deltas first
# (--reasoning-format auto), then content.
s = ls(m3, 1758541580, cid, {"role": "assistant", "content": None})
for w in ["The", " totals", " are", " printed", "; ", "```python\nprint('never run: this is thinking')\n```"]:
    s += ls(m3, 1758541580, cid, {"reasoning_content": w})
for w in ANSWER:
    s += ls(m3, 1758541580, cid, {"content": w})
s += ls(m3, 1758541580, cid, {}, "stop", timings=True)
s += "data: [DONE]\n\n"
write("llama-server-fragments", "02.sse", s)

# --- llama-server ending a stream with an error event when the output did
# not parse as a tool call (server_sent_event(sink, "error", …) in
# server.cpp: an `error: ` line, not `data: `). rehome retries once with
# fenced blocks.
s = ls(m3, 1758541600, cid, {"role": "assistant", "content": None})
s += ls(m3, 1758541600, cid, {"content": "<tool"})
s += 'error: ' + j({"code": 500, "message": "Failed to parse input at pos 5: <tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\": \"import", "type": "server_error"}) + "\n\n"
write("llama-server-error", "01.sse", s)
s = ls(m3, 1758541610, cid, {"role": "assistant", "content": None})
for w in ["```python\n", CODE, "```"]:
    s += ls(m3, 1758541610, cid, {"content": w})
s += ls(m3, 1758541610, cid, {}, "stop", timings=True)
s += "data: [DONE]\n\n"
write("llama-server-error", "02.sse", s)
s = ls(m3, 1758541620, cid, {"role": "assistant", "content": None})
for w in ANSWER:
    s += ls(m3, 1758541620, cid, {"content": w})
s += ls(m3, 1758541620, cid, {}, "stop", timings=True) + "data: [DONE]\n\n"
write("llama-server-error", "03.sse", s)

# --- LM Studio (lmstudio-bug-tracker #649): id "chatcmpl-<random>",
# system_fingerprint = model; each fragment repeats "type":"function" and
# "name":"" ; the id only in the first fragment (a numeric string);
# "logprobs": null.
def lm(model, created, cid, delta, finish=None):
    return "data: " + j({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                         "system_fingerprint": model,
                         "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}) + "\n\n"

m4 = "qwen2.5-7b-instruct"
cid = "chatcmpl-8cybkqa7743exgha66o2hg"
s = lm(m4, 1746707722, cid, {"role": "assistant", "content": ""})
s += lm(m4, 1746707722, cid, {"tool_calls": [{"index": 0, "id": "206410946", "type": "function", "function": {"name": "python", "arguments": ""}}]})
for i in range(0, len(args), 12):
    s += lm(m4, 1746707722, cid, {"tool_calls": [{"index": 0, "type": "function", "function": {"name": "", "arguments": args[i:i + 12]}}]})
s += lm(m4, 1746707722, cid, {}, "tool_calls")
s += "data: [DONE]\n\n"
write("lmstudio", "01.sse", s)
s = lm(m4, 1746707730, cid, {"role": "assistant", "content": ""})
for w in ANSWER:
    s += lm(m4, 1746707730, cid, {"content": w})
s += lm(m4, 1746707730, cid, {}, "stop") + "data: [DONE]\n\n"
write("lmstudio", "02.sse", s)
# LM Studio's in-stream error (zendev-sh/goai #110).
s = lm(m4, 1746707740, cid, {"role": "assistant", "content": ""})
s += lm(m4, 1746707740, cid, {"content": "South"})
s += "data: " + j({"error": {"message": "Compute error."}, "message": "Compute error."}) + "\n\n"
write("lmstudio-error", "01.sse", s)

# --- A proxy / native-shape server: arguments as an object, a numeric id,
# no index, no [DONE] after the finish reason.
s = "data: " + j({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"id": 7, "type": "function", "function": {"name": "python", "arguments": {"code": CODE}}}]}, "finish_reason": "tool_calls"}]}) + "\n\n"
write("object-args", "01.sse", s)
s = "data: " + j({"id": "x", "object": "chat.completion.chunk", "created": 2, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "South had the most revenue: 230.0."}, "finish_reason": "stop"}]}) + "\n\n"
write("object-args", "02.sse", s)

# --- A model that loops: the same call again (ids differ).
s1 = ollama(m, 1744438886, 840, {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_a1b2c3d4", "index": 0, "type": "function", "function": {"name": "python", "arguments": j({"code": CODE})}}]})
s1 += ollama(m, 1744438886, 840, {"role": "assistant", "content": ""}, "tool_calls") + "data: [DONE]\n\n"
write("loop", "01.sse", s1)
s2 = ollama(m, 1744438890, 841, {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_e5f6a7b8", "index": 0, "type": "function", "function": {"name": "python", "arguments": j({"code": CODE.replace("\n", "\n\n")})}}]})
s2 += ollama(m, 1744438890, 841, {"role": "assistant", "content": ""}, "tool_calls") + "data: [DONE]\n\n"
write("loop", "02.sse", s2)

# --- A server dropping mid-stream (the TCP connection cut, no [DONE]).
s = ollama(m, 1744438900, 850, {"role": "assistant", "content": "South"})
s += ollama(m, 1744438900, 850, {"role": "assistant", "content": " had"})
s += "#DROP\n"
write("drop", "01.sse", s)

# --- <think> in the content (deepseek-r1 on Ollama before "reasoning"),
# split across chunks, with a python block inside the thinking that must
# never run; then a fenced action after the thinking.
think = "<think>\nMaybe ```python\nimport os; os.system('rm -rf /')\n```\n</think>\n\n```python\n" + CODE + "```"
write("think", "01.sse", ollama_answer("deepseek-r1:7b", 1744439100, 950, [think[i:i + 5] for i in range(0, len(think), 5)]))
write("think", "02.sse", ollama_answer("deepseek-r1:7b", 1744439110, 951, ["<thi", "nk>done</th", "ink>", "South had the most revenue: 230.0."]))

# --- A session: two files, two calls, the second using what the first
# defined (no reload); then the answer. Ollama's shape; rehome's own words.
S1 = ("import pandas as pd\n"
      "sales = pd.read_csv('/mnt/data/sales.csv')\n"
      "targets = pd.read_csv('/mnt/data/targets.csv')\n"
      "print(len(sales), 'sales rows,', len(targets), 'targets')\n")
S2 = ("import matplotlib.pyplot as plt\n"
      "d = (sales.groupby('region')['revenue'].sum() - targets.set_index('region')['target']).sort_values()\n"
      "print(d.to_string())\n"
      "d.plot.bar(title='Revenue over target')\n"
      "plt.show()\n")
for i, (cid, code) in enumerate([("call_s1e55i0n", S1), ("call_s2e55i0n", S2)]):
    s = ollama(m, 1744439200 + i, 960 + i, {"role": "assistant", "content": "", "tool_calls": [
        {"id": cid, "index": 0, "type": "function", "function": {"name": "python", "arguments": j({"code": code})}}]})
    s += ollama(m, 1744439200 + i, 960 + i, {"role": "assistant", "content": ""}, "tool_calls") + "data: [DONE]\n\n"
    write("session-state", "%02d.sse" % (i + 1), s)
write("session-state", "03.sse", ollama_answer(m, 1744439210, 962, ["East", " beat", " its", " target", " by", " the", " most", ":", " 21.0", "."]))

# --- A cell that runs until it is stopped.
s = ollama(m, 1744439300, 970, {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_s1eep000", "index": 0, "type": "function", "function": {"name": "python", "arguments": j({"code": "import time\nx = 41\nprint('started', flush=True)\ntime.sleep(600)\n"})}}]})
s += ollama(m, 1744439300, 970, {"role": "assistant", "content": ""}, "tool_calls") + "data: [DONE]\n\n"
write("slow-cell", "01.sse", s)
write("slow-cell", "02.sse", ollama_answer(m, 1744439310, 971, ["Not", " reached", "."]))
