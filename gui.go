package main

import (
	"context"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"rehome/app"
)

// runWindow opens the desktop window. With no display it says so and
// serves the UI to a browser instead.
func runWindow(env *cliEnv, openFile string) int {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(env.stderr, "rehome: no display found (DISPLAY and WAYLAND_DISPLAY are unset): starting `rehome serve` instead; open the URL below in a browser on this machine.")
		return cmdServe(env, nil)
	}
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	files, err := assets()
	if err != nil {
		return env.fail(err)
	}
	a := app.New(app.Config{DataDir: dir, Log: env.log})
	err = wails.Run(&options.App{
		Title:     "rehome",
		Width:     1280,
		Height:    820,
		MinWidth:  900,
		MinHeight: 600,
		AssetServer: &assetserver.Options{
			Assets: files,
		},
		BackgroundColour: options.NewRGB(0x1b, 0x1d, 0x23),
		OnStartup: func(ctx context.Context) {
			// The store opens here, after the single-instance check, so a
			// second launch focuses this window instead of failing on the
			// database lock. An open error is shown by the UI.
			_ = app.Open(a)
			app.SetEmitter(a, wailsEmitter{ctx})
			env.log.Info("window started", "data", dir, "open", openFile)
		},
		OnShutdown: func(ctx context.Context) { app.Close(a) },
		Bind:       []any{a},
		DragAndDrop: &options.DragAndDrop{
			EnableFileDrop: true,
		},
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: "io.rehome.desktop",
			OnSecondInstanceLaunch: func(data options.SecondInstanceData) {
				env.log.Info("second instance launched", "args", data.Args)
			},
		},
		Linux: &linux.Options{ProgramName: "rehome", WindowIsTranslucent: false},
	})
	if err != nil {
		return env.fail(fmt.Errorf("open the window: %w (run `rehome serve` to use rehome in a browser)", err))
	}
	return exitOK
}

// wailsEmitter sends progress events to the window.
type wailsEmitter struct{ ctx context.Context }

func (w wailsEmitter) Emit(event string, payload any) {
	runtime.EventsEmit(w.ctx, event, payload)
}
