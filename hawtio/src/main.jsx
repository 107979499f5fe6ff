// The Hawtio console for Paysync's operators: Hawtio's own plugins (Camel, JMX, Runtime, Logs) and a Paysync page,
// branded Paysync (public/hawtconfig.json), talking to the runtime's Jolokia at <base>/jolokia with the operator
// credentials the browser presents. No user menu (hawtconfig.json): there is no session to log out of, the browser
// sends the credentials with each request (HTTP Basic) until it is closed. Loaded in Hawtio's asynchronous way: its core, then its UI, each a chunk of its own.
import '@hawtio/react/dist/index.css'
import '@patternfly/react-core/dist/styles/base.css'
import { configManager, HawtioInitialization } from '@hawtio/react/init'
import React from 'react'
import ReactDOM from 'react-dom/client'

configManager.addProductInfo('Paysync', 'operator console')

// Opened at its address, the console shows the routes of the runtime that serves it (Camel, its context, the routes
// table), not Hawtio's first plugin's page.
const base = new URL(document.baseURI).pathname
if (window.location.pathname === base || window.location.pathname + '/' === base) {
  window.history.replaceState(null, '', base + 'camel/routes' + window.location.search)
}

const root = ReactDOM.createRoot(document.getElementById('root'))
root.render(<HawtioInitialization verbose={false} />)

import('@hawtio/react').then(async hawtioCore => {
  hawtioCore.registerPlugins()
  const { paysync } = await import('./paysync-plugin.jsx')
  paysync()
  await hawtioCore.hawtio.bootstrap()
  const { Hawtio } = await import('@hawtio/react/ui')
  root.render(
    <React.StrictMode>
      <Hawtio />
    </React.StrictMode>,
  )
})
