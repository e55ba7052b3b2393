import { defineConfig } from 'vite';

// Built with `vite build apps/console` (root = this folder) and served by the registry at /console/.
// Vite 8 transforms JSX with its built-in oxc; the automatic runtime imports from preact/jsx-runtime.
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: true },
});
