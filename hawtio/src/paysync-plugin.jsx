// A "Paysync" entry in Hawtio's navigation that leads to Paysync's own console (orders, dead letters, anomalies,
// history), which is served on the API port. The runtime tells where in paysync.json beside this console.
import { hawtio } from '@hawtio/react'
import { PageSection, Content, Title } from '@patternfly/react-core'
import React, { useEffect, useState } from 'react'

function consoleUrl(settings) {
  if (settings.console) {
    return settings.console
  }
  return `${window.location.protocol}//${window.location.hostname}:${settings.apiPort}/console/`
}

function PaysyncPage() {
  const [url, setUrl] = useState(null)
  useEffect(() => {
    fetch('paysync.json')
      .then(answer => answer.json())
      .then(settings => setUrl(consoleUrl(settings)))
      .catch(() => setUrl(null))
  }, [])
  return (
    <PageSection>
      <Title headingLevel='h1'>Paysync</Title>
      <Content>
        <p>
          Orders, dead letters (replay, resolve), anomalies and each order&apos;s history are in{' '}
          {url ? (
            <a id='paysync-console-link' href={url}>
              Paysync&apos;s console
            </a>
          ) : (
            "Paysync's console (/console/ on the API port)"
          )}
          .
        </p>
        <p>
          Here: the Camel tab shows every route with its statistics and diagram, and lets you stop and start a route;
          a step of a diagram shows its description when the pointer rests on it; the Runtime tab shows the JVM. The
          diagram&apos;s and the other tabs&apos; settings are in <a href='preferences'>Preferences</a>.
        </p>
        <p id='paysync-sign-out'>
          There is no session to log out of: the browser sends your operator credentials with each request until it
          is closed. Close the browser to sign out.
        </p>
      </Content>
    </PageSection>
  )
}

export const paysync = () => {
  hawtio.addPlugin({
    id: 'paysync',
    title: 'Paysync',
    path: '/paysync',
    component: PaysyncPage,
    isActive: async () => true,
  })
}
