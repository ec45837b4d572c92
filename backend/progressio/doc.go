// Package progressio holds the reader that the long copies and hashes of
// large files (models, libraries) read through: it stops when the context
// ends and reports how far it has come; and the Counter of the bytes a
// reader or a writer passed (an export's size, how much of a file a
// preview read).
package progressio
