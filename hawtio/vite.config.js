import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// Served by the runtime at /observe/hawtio/ (on the management port); Hawtio finds Jolokia at <base>/jolokia.
export default defineConfig({
  base: '/observe/hawtio/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 8192,
  },
})
