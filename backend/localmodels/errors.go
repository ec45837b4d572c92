package localmodels

import "errors"

// ErrNotFound is returned for a name no carried model has.
var ErrNotFound = errors.New("no carried model of that name")

// ErrExists is returned when a model of that name is registered already.
var ErrExists = errors.New("a carried model of that name exists already")

// ErrNotGGUF wraps every reason a file is not a usable GGUF model.
var ErrNotGGUF = errors.New("not a usable GGUF model file")

// ErrMissing is returned when a registered file is gone or changed.
var ErrMissing = errors.New("the model file is missing or changed")
