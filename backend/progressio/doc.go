// Package progressio holds the reader that the long copies and hashes of
// large files (models, libraries) read through: it stops when the context
// ends and reports how far it has come.
package progressio
