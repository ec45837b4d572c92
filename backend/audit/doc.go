// Package audit says, per capability of a custom GPT, whether it ports
// as-is to local weights, has to be rebuilt and operated, or does not port,
// with the reason, the cost and the local replacement, and turns that into
// a verdict per assistant: move, move in part, or keep.
//
// The knowledge lives in data, not code: catalog.json (embedded) lists every
// capability with its default category and the conditional rules that change
// it (air-gapped, data that must stay local, VRAM left beside the text
// model...). The evaluator here only reads those rules. Audits are stored in
// the store's Audits bucket so the user can see how the answer changed.
package audit
