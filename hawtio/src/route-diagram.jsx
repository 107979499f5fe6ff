// Hawtio's route diagram, drawn by React Flow, as Paysync's operators read it. The build hands Hawtio this module
// where it asks for 'reactflow' (vite.config.js); everything else is React Flow's own. What it changes:
// - each step is labelled with its kind ("Loop", "To", "Split") above its full id, and its description shows when
//   the pointer rests on it: Hawtio's own label runs the kind, the endpoint and the expression's text together and
//   cuts the result at 17 characters;
// - a diagram opens fitted to its frame, however long the route: Hawtio fits it, but React Flow stops zooming out
//   at half size, which leaves both ends of a long route outside; zoom buttons and a "fit" button stay at hand.
import React, { useContext, useMemo } from 'react'
import { PluginNodeSelectionContext } from '@hawtio/react'
import { Controls, ReactFlow as Flow } from 'reactflow-original'
import './route-diagram.css'

export * from 'reactflow-original'

const MIN_ZOOM = 0.05

// The step elements of the selected route (or of every route, for the routes folder), by route id and step id:
// the XML Hawtio read with dumpRoutesAsXml, where each step has its id and description.
function stepsOf(xml) {
  const steps = new Map()
  if (!xml) {
    return steps
  }
  const doc = new DOMParser().parseFromString(xml.trim(), 'application/xml')
  for (const route of doc.getElementsByTagName('route')) {
    for (const step of route.querySelectorAll('[id]')) {
      steps.set(route.getAttribute('id') + '/' + step.getAttribute('id'), step)
    }
  }
  return steps
}

// The kind of step out of Hawtio's label: its title, before the endpoint and the expression Hawtio appends.
function kindOf(data) {
  let label = data.label || data.name || ''
  // The endpoint follows its scheme; Hawtio may have cut the label anywhere after it.
  const scheme = data.uri ? ' ' + data.uri.split(':')[0] + ':' : null
  if (scheme && label.indexOf(scheme) > 0) {
    label = label.substring(0, label.indexOf(scheme))
  }
  const expression = label.indexOf(': ')
  return expression > 0 ? label.substring(0, expression) : label
}

function labelled(CamelNode) {
  const Step = props => {
    const { data } = props
    return (
      <div className='paysync-step' title={data.paysyncDescription || undefined}>
        <CamelNode {...props} data={{ ...data, label: kindOf(data) }} />
      </div>
    )
  }
  return Step
}

export function ReactFlow({ nodeTypes, nodes, children, ...props }) {
  const { selectedNode } = useContext(PluginNodeSelectionContext)
  const xml = selectedNode ? selectedNode.getMetadata('xml') : null
  const steps = useMemo(() => stepsOf(xml), [xml])
  const types = useMemo(() => {
    if (!nodeTypes || !nodeTypes.camel) {
      return nodeTypes
    }
    return { ...nodeTypes, camel: labelled(nodeTypes.camel) }
  }, [nodeTypes])
  const described = useMemo(
    () =>
      (nodes || []).map(node => {
        const step = node.data && steps.get(node.data.routeId + '/' + node.data.elementId)
        const description = step ? step.getAttribute('description') : null
        return description ? { ...node, data: { ...node.data, paysyncDescription: description } } : node
      }),
    [nodes, steps],
  )
  return (
    <Flow {...props} nodeTypes={types} nodes={described} minZoom={MIN_ZOOM}>
      <Controls showInteractive={false} fitViewOptions={{ padding: 0.1, minZoom: MIN_ZOOM }} />
      {children}
    </Flow>
  )
}

export default ReactFlow
