package actions

import (
	"encoding/json"
	"mime"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// checkResponse checks a JSON answer against the schema's response for
// its status (or the default), where the schema says what it is. It
// returns "" when the answer fits or the schema says nothing.
func (s *Spec) checkResponse(op *Operation, status int, contentType, body string) string {
	if op.op == nil || op.op.Responses == nil {
		return ""
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return ""
	}
	r := op.op.Responses.Value(strconv.Itoa(status))
	if r == nil {
		r = op.op.Responses.Value(strconv.Itoa(status/100) + "XX")
	}
	if r == nil {
		r = op.op.Responses.Default()
	}
	if r == nil || r.Value == nil {
		return ""
	}
	media := r.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return "it is not valid JSON (" + err.Error() + ")"
	}
	opts := append(s.doc.GetSchemaValidationOptions(), openapi3.VisitAsResponse())
	if err := media.Schema.Value.VisitJSON(v, opts...); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\nSchema:"); i > 0 {
			msg = msg[:i]
		}
		return strings.TrimSpace(msg)
	}
	return ""
}
