import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// Served by the runtime at /observe/hawtio/ (on the management port); Hawtio finds Jolokia at <base>/jolokia.
// Hawtio's route diagram gets React Flow through src/route-diagram.jsx, which labels the steps by kind, id and
// description and opens a long route readable at its start; that module reaches React Flow itself as
// 'reactflow-original'.
export default defineConfig({
  base: '/observe/hawtio/',
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^reactflow$/, replacement: fileURLToPath(new URL('./src/route-diagram.jsx', import.meta.url)) },
      {
        find: /^reactflow-original$/,
        replacement: fileURLToPath(new URL('./node_modules/reactflow/dist/esm/index.mjs', import.meta.url)),
      },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 8192,
  },
})
