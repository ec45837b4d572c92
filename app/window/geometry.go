package window

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"rehome/backend/atomicfile"
)

// geometry is the window's remembered place on screen.
type geometry struct {
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Maximised bool `json:"maximised"`
}

func (g geometry) valid() bool {
	return g.Width >= minWidth && g.Height >= minHeight && g.Width <= maxRemembered && g.Height <= maxRemembered &&
		g.X > -g.Width/2 && g.Y >= 0 && g.X < maxRemembered && g.Y < maxRemembered
}

func loadGeometry(dir string) geometry {
	var g geometry
	b, err := os.ReadFile(filepath.Join(dir, geometryFile))
	if err != nil || json.Unmarshal(b, &g) != nil {
		return geometry{}
	}
	return g
}

// geometryOf reads the window's size and place now.
func geometryOf(ctx context.Context) geometry {
	var g geometry
	g.Maximised = runtime.WindowIsMaximised(ctx)
	g.Width, g.Height = runtime.WindowGetSize(ctx)
	g.X, g.Y = runtime.WindowGetPosition(ctx)
	return g
}

func (g geometry) save(dir string, log *slog.Logger) {
	if g.Maximised {
		// Keep the size to return to; remember only that it was maximised.
		old := loadGeometry(dir)
		old.Maximised = true
		g = old
	} else if !g.valid() {
		return
	}
	b, _ := json.Marshal(g)
	if err := atomicfile.WriteFile(filepath.Join(dir, geometryFile), b, 0o600); err != nil {
		log.Warn("remember the window's place", "err", err)
	}
}
