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
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
  },
});
