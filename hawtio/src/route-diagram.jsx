// Hawtio's route diagram, drawn by React Flow, as Paysync's operators read it. The build hands Hawtio this module
// where it asks for 'reactflow' (vite.config.js); everything else is React Flow's own. What it changes:
// - each step is labelled with its kind ("Loop", "To", "Split") above its full id, and its description shows when
//   the pointer rests on it: Hawtio's own label runs the kind, the endpoint and the expression's text together and
//   cuts the result at 17 characters;
// - a diagram opens readable: Hawtio fits the whole route (or, for the routes folder, every route) into its frame,
//   which draws a long one's text a few pixels high. Here the fit stops at the zoom where the steps' text is still
//   LEGIBLE_PX high; a diagram that is larger opens at its start (its top, centred or from the left) and the rest is
//   reached by scrolling (the wheel pans; Ctrl or ⌘ and the wheel, or the buttons, zoom, never below that size).
import React, { useContext, useMemo } from 'react'
import { PluginNodeSelectionContext } from '@hawtio/react'
import {
  Controls,
  ReactFlow as Flow,
  getNodesBounds,
  getViewportForBounds,
  useReactFlow as useFlow,
  useStoreApi,
} from 'reactflow-original'
import './route-diagram.css'

export * from 'reactflow-original'

// The steps' text size (route-diagram.css sets it) and the smallest it may be drawn at.
const TEXT_PX = 13
const LEGIBLE_PX = 10.5
const MIN_ZOOM = LEGIBLE_PX / TEXT_PX
// Room left around a diagram that opens at its start, in screen pixels.
const MARGIN = 24

// Hawtio's fitView, stopped at MIN_ZOOM: what fits is fitted as Hawtio asks; what does not opens at its start.
function readableFit(flow, store, options = {}) {
  const { width, height, maxZoom } = store.getState()
  const nodes = flow.getNodes().filter(node => !node.hidden && node.width && node.height)
  if (nodes.length === 0 || !width || !height) {
    return flow.fitView(options)
  }
  const bounds = getNodesBounds(nodes)
  const fitted = getViewportForBounds(bounds, width, height, 0, options.maxZoom ?? maxZoom, options.padding ?? 0.1)
  if (fitted.zoom >= MIN_ZOOM) {
    return flow.fitView({ ...options, minZoom: MIN_ZOOM })
  }
  const zoom = MIN_ZOOM
  const wide = bounds.width * zoom + 2 * MARGIN > width
  const x = wide ? MARGIN - bounds.x * zoom : (width - bounds.width * zoom) / 2 - bounds.x * zoom
  const y = MARGIN - bounds.y * zoom
  flow.setViewport({ x, y, zoom }, { duration: options.duration })
  return true
}

// What Hawtio's diagram gets for useReactFlow: React Flow's own, with the fit above.
export function useReactFlow() {
  const flow = useFlow()
  const store = useStoreApi()
  return useMemo(() => ({ ...flow, fitView: options => readableFit(flow, store, options) }), [flow, store])
}

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
    <Flow {...props} nodeTypes={types} nodes={described} minZoom={MIN_ZOOM} panOnScroll>
      <Controls showInteractive={false} showFitView={false} />
      {children}
    </Flow>
  )
}

export default ReactFlow
