// Package assistant holds the record of a custom GPT being moved to local
// weights, and the operations on the stored assistants.
package assistant
