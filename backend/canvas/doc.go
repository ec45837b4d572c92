// Package canvas holds a conversation's canvas: text documents and code
// files ("textdocs", as ChatGPT's canvas names them) shown beside the
// chat, which the model creates and edits with three tools — create,
// update by pattern (a whole rewrite with ".*", or targeted replacements),
// comment — and the user edits directly. Each change is a version, kept
// with its author; any version can be diffed against another and
// restored; a textdoc exports as Markdown, Python or a Jupyter notebook.
//
// The tools' arguments are those of ChatGPT's canmore tool
// (canmore.create_textdoc {name, type, content}, canmore.update_textdoc
// {updates: [{pattern, multiple, replacement}]}, canmore.comment_textdoc
// {comments: [{pattern, comment}]}), whose patterns are Python regular
// expressions: they are read here by Go's RE2 after the Python-only
// replacement syntax (\1, \g<name>) is turned into Go's.
package canvas
