// Package ipynb holds what rehome's two notebook exports share (a
// conversation's, backend/llm, and a session's cells, sandbox): Jupyter's
// nbformat 4.5 envelope and its way of splitting text into lines.
package ipynb
