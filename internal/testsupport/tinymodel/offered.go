package tinymodel

// The offer detector (Script.IfOffered). A model offered no tool does not
// call one, and llama-server would not let it: with tools in a request it
// holds a call's name to the tools offered (a lazy grammar, triggered by
// <tool_call>), so a model that says the name of a tool it was not
// offered is steered into the grammar's other paths and, this one, back
// into its chains, over and over (a temporary chat offers no memory tool).
//
// So a one-call model may look for its tool's offer: the chat template
// lists each tool offered as JSON in the system prompt, {"type":
// "function", "function": {"name": "memory", …}, and the text
// `"function": {"name": "memory"` made a user-defined token is said by
// the tokenizer exactly there (user-defined tokens are matched in any
// text before BPE, longest first). Its embedding sets dimOffer; the second
// layer's head (secondDetector, free in a one-call model) writes +1 into
// dimFlag2 where it is in the prompt, −1 where not.

import "errors"

// dimOffer is the residual dimension of the offer token.
const dimOffer = 61

// offerText is how Qwen2.5's template (tojson, with Python's separators)
// lists the tool name among the tools offered.
func offerText(name string) string { return `"function": {"name": "` + name + `"` }

// offerToken gives the listing of the tool name its token.
func offerToken(v *vocab, name string) (int32, error) {
	if name == "" {
		return 0, errors.New("IfOffered needs the call's tool name")
	}
	id, err := v.addUserToken(offerText(name))
	return int32(id), err
}

// offerWeights are the weights of the token said at step k (0 the call,
// 1 the answer) where the prompt's end chooses: the call scores
// β(−f1 + f2 − 1), the answer β(f1 − f2 + 1), so that the call wins by
// 2β only at (f1, f2) = (−1, +1) (no tool result yet, the tool offered)
// and the answer by 2β elsewhere. The constant's weight is at most β, so
// a token off the branch gets at most 3β, against a successor's α.
func offerWeights(k int) (f1, f2, bias float32) {
	if k == 0 {
		return -beta, beta, -beta
	}
	return beta, -beta, beta
}
