// Package chatgptexport reads ChatGPT's data export (Settings → Data
// controls → Export): the .zip it mails, its conversations.json, or one
// conversation object as chatgpt.com's backend-api returns it.
//
// conversations.json is read as a stream — encoding/json's Decoder over
// the top-level array, one conversation at a time — so an export of
// hundreds of megabytes holds one conversation in memory, never the file.
// What it reads is bounded (Limits): the decompressed size and the
// compression ratio of each zip entry, one conversation's bytes, the
// number of conversations and of messages in one, the depth of its tree;
// a zip entry whose name climbs out of its folder (../, an absolute
// path) refuses the zip. Each conversation becomes an llm.Conversation:
// the branch the user was on (current_node back to the root), with the
// other branches kept as alternatives, hidden and system messages left
// out, code the GPT ran and its output as cells, and its gizmo_id.
package chatgptexport
