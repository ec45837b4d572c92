import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { writeFileSync } from 'node:fs';

// The Go binary embeds frontend/dist; git keeps dist/.gitkeep so that a
// fresh clone compiles before the first frontend build. Vite empties dist,
// so put the marker back after each build.
const keepDist = {
  name: 'keep-dist',
  closeBundle() {
    writeFileSync('dist/.gitkeep', '');
  },
};

export default defineConfig({
  plugins: [svelte(), keepDist],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    minify: process.env.REHOME_DEBUG_BUILD ? false : undefined,
    // Fonts (KaTeX's) stay files: the page's CSP loads fonts from the app
    // itself, not from data: URLs.
    assetsInlineLimit: (file: string) => (/\.(woff2?|ttf|otf)$/.test(file) ? false : undefined),
  },
  // Vitest mounts components as the browser does (not Svelte's server build).
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
  },
});
