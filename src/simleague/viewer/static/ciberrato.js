// The CiberRato page of the simleague web viewer: draws the lab and the robots to scale, keeps the
// scoreboard, sends control panel commands (live) or plays a logged trial (replay).
// Messages are described in simleague/ciberrato/web.py. Lab coordinates are u_m with y up.
"use strict";

const ROBOT_RADIUS = 0.5;                 // u_m, the robots' body (spec "World")
const IR_HALF_APERTURE = Math.PI / 6;     // obstacle sensor cone: ±30 degrees
const IR_MAX_DRAWN = 2;                   // u_m: cones of far readings are cut here
const TRAIL_POINTS = 1500;
const FLASH_MS = 450;
const LED = { visiting: "#1e88e5", returning: "#fb8c00", end: "#43a047" };
const PALETTE = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2",
                 "#8c564b", "#bcbd22", "#7f7f7f"];
// indices in a frame's robot array
const ID = 0, X = 1, Y = 2, DIR = 3, LEDS = 4, STATE = 5, SCORE = 6, COLLS = 7, COLL = 8,
      VISIT = 9, RETURN = 10, RANK = 11, IR = 12;

const $ = (id) => document.getElementById(id);
const canvas = $("canvas");
const ctx = canvas.getContext("2d");

const view = {
  scene: null, roster: new Map(), frame: null, mode: null, socket: null,
  staticLayer: null, scale: 1, ox: 0, oy: 0, cssWidth: 0, cssHeight: 0,
  trails: new Map(), flashes: new Map(), dirty: true, scoreHtml: "",
  replay: null,        // {frames, cycles (t of each frame), index, playing, speed, carry}
};

// What the page drew last, for people debugging and for the browser tests.
window.simleague = { connected: false, mode: null, scene: null, frame: null, drawn: {}, draws: 0, drawMs: [],
                     toPixel: (x, y) => toPixel(x, y), messages: 0 };

function colour(id) { return PALETTE[(id - 1) % PALETTE.length]; }

function toPixel(x, y) {
  return [view.ox + x * view.scale, view.oy + (view.scene.lab.height - y) * view.scale];
}

// ---- layout and the static layer -----------------------------------------------------------------

function layout() {
  const dpr = window.devicePixelRatio || 1;
  const rect = canvas.getBoundingClientRect();
  view.cssWidth = rect.width; view.cssHeight = rect.height;
  canvas.width = Math.max(1, Math.round(rect.width * dpr));
  canvas.height = Math.max(1, Math.round(rect.height * dpr));
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (!view.scene) return;
  const lab = view.scene.lab, margin = 12;
  view.scale = Math.max(1e-3, Math.min((rect.width - 2 * margin) / lab.width,
                                       (rect.height - 2 * margin) / lab.height));
  view.ox = (rect.width - lab.width * view.scale) / 2;
  view.oy = (rect.height - lab.height * view.scale) / 2;
  view.staticLayer = drawStatic(dpr);
  view.dirty = true;
}

function wallShade(height) {
  const k = Math.min(1, height / 4);          // higher walls are darker
  const v = Math.round(175 - 120 * k);
  return `rgb(${v},${v},${v + 8})`;
}

function polygon(c, corners) {
  c.beginPath();
  corners.forEach(([x, y], i) => { const [px, py] = toPixel(x, y); i ? c.lineTo(px, py) : c.moveTo(px, py); });
  c.closePath();
}

function drawStatic(dpr) {
  const layer = document.createElement("canvas");
  layer.width = canvas.width; layer.height = canvas.height;
  const c = layer.getContext("2d");
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  const { lab, grid } = view.scene, s = view.scale;
  const [x0, y0] = toPixel(0, lab.height);
  c.fillStyle = "#fbfbf7"; c.fillRect(x0, y0, lab.width * s, lab.height * s);
  c.strokeStyle = "#1d2329"; c.lineWidth = 2; c.strokeRect(x0, y0, lab.width * s, lab.height * s);
  for (const [height, corners] of lab.walls) {
    polygon(c, corners);
    if (height <= 0) { c.strokeStyle = "#222"; c.lineWidth = 1.5; c.stroke(); }   // a floor line
    else { c.fillStyle = wallShade(height); c.fill(); }
  }
  lab.targets.forEach(([x, y, r], i) => {
    const [px, py] = toPixel(x, y);
    c.beginPath(); c.arc(px, py, r * s, 0, 2 * Math.PI);
    c.fillStyle = "rgba(67,160,71,.16)"; c.fill();
    c.strokeStyle = "#43a047"; c.lineWidth = 1.5; c.stroke();
    label(c, `T${i}`, px, py + r * s + 11, "#2e7d32");
  });
  lab.beacons.forEach(([x, y, h], i) => {
    const [px, py] = toPixel(x, y);
    c.beginPath(); c.arc(px, py, Math.max(4, 0.25 * s), 0, 2 * Math.PI);
    c.fillStyle = "#e53935"; c.fill();
    label(c, `B${i} h${h}`, px, py - Math.max(6, 0.3 * s) - 3, "#b71c1c");
  });
  grid.forEach(([x, y, dir], i) => {
    const [px, py] = toPixel(x, y), r = ROBOT_RADIUS * s, a = dir * Math.PI / 180;
    c.beginPath(); c.arc(px, py, r, 0, 2 * Math.PI);
    c.setLineDash([3, 3]); c.strokeStyle = "#8a939c"; c.lineWidth = 1; c.stroke(); c.setLineDash([]);
    c.beginPath(); c.moveTo(px, py); c.lineTo(px + r * Math.cos(a), py - r * Math.sin(a)); c.stroke();
    label(c, String(i + 1), px, py + r + 10, "#5b6570");
  });
  return layer;
}

function label(c, text, x, y, fill) {
  c.font = "11px system-ui, sans-serif"; c.textAlign = "center";
  c.lineWidth = 3; c.strokeStyle = "rgba(255,255,255,.85)"; c.strokeText(text, x, y);
  c.fillStyle = fill; c.fillText(text, x, y);
}

// ---- the moving parts ------------------------------------------------------------------------------

function draw(now) {
  const began = performance.now();
  ctx.clearRect(0, 0, view.cssWidth, view.cssHeight);
  if (!view.scene) return;
  const dpr = window.devicePixelRatio || 1;
  ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.drawImage(view.staticLayer, 0, 0); ctx.restore();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const frame = view.frame, s = view.scale, drawn = {};
  if (frame) {
    if ($("show-trails").checked) {
      for (const [id, points] of view.trails) {
        if (points.length < 2) continue;
        ctx.beginPath();
        points.forEach(([x, y], i) => { const [px, py] = toPixel(x, y); i ? ctx.lineTo(px, py) : ctx.moveTo(px, py); });
        ctx.strokeStyle = colour(id); ctx.globalAlpha = 0.55; ctx.lineWidth = 1.5; ctx.stroke(); ctx.globalAlpha = 1;
      }
    }
    // cones and collision rings first, then every body: neither may cover a neighbour
    const cones = $("show-cones").checked;
    for (const r of frame.r) {
      const [px, py] = toPixel(r[X], r[Y]), info = view.roster.get(r[ID]);
      if (cones && info) drawCones(px, py, r[DIR] * Math.PI / 180, info.ir, r[IR]);
      const flash = view.flashes.get(r[ID]);
      if (flash !== undefined && now - flash < FLASH_MS) {
        const k = (now - flash) / FLASH_MS;
        ctx.beginPath(); ctx.arc(px, py, ROBOT_RADIUS * s * (1.1 + 0.9 * k), 0, 2 * Math.PI);
        ctx.strokeStyle = `rgba(229,57,53,${1 - k})`; ctx.lineWidth = 3; ctx.stroke();
        view.dirty = true;                        // keep animating the flash
      }
    }
    for (const r of frame.r) {
      const [px, py] = toPixel(r[X], r[Y]), rad = ROBOT_RADIUS * s, a = r[DIR] * Math.PI / 180;
      ctx.beginPath(); ctx.arc(px, py, rad, 0, 2 * Math.PI);
      ctx.fillStyle = colour(r[ID]); ctx.globalAlpha = r[STATE] === "Removed" ? 0.3 : 1; ctx.fill();
      ctx.strokeStyle = "#111"; ctx.lineWidth = 1; ctx.stroke();
      ctx.beginPath(); ctx.moveTo(px, py); ctx.lineTo(px + rad * Math.cos(a), py - rad * Math.sin(a));
      ctx.strokeStyle = "#fff"; ctx.lineWidth = 2; ctx.stroke(); ctx.globalAlpha = 1;
      drawn[r[ID]] = { x: r[X], y: r[Y], dir: r[DIR], px, py };
    }
    for (const r of frame.r) {                     // lamps and names last, over every body
      const info = view.roster.get(r[ID]), [px, py] = toPixel(r[X], r[Y]), rad = ROBOT_RADIUS * s;
      drawLeds(px, py, rad, r[LEDS]);
      label(ctx, info ? info.name : `robot ${r[ID]}`, px, py - rad - 6, "#1d2329");
    }
  }
  window.simleague.drawn = drawn;
  window.simleague.frame = frame;
  window.simleague.draws += 1;
  const ms = window.simleague.drawMs;
  ms.push(performance.now() - began); if (ms.length > 600) ms.shift();
}

function drawCones(px, py, heading, angles, values) {
  const s = view.scale;
  angles.forEach((deg, k) => {
    const v = values[k];
    if (v === undefined) return;
    const reach = ROBOT_RADIUS + Math.min(IR_MAX_DRAWN, v > 0 ? 1 / v : IR_MAX_DRAWN);
    const a = heading + deg * Math.PI / 180;
    ctx.beginPath(); ctx.moveTo(px, py);
    ctx.arc(px, py, reach * s, -a - IR_HALF_APERTURE, -a + IR_HALF_APERTURE);
    ctx.closePath(); ctx.fillStyle = "rgba(255,193,7,.22)"; ctx.fill();
    ctx.strokeStyle = "rgba(255,160,0,.6)"; ctx.lineWidth = 1; ctx.stroke();
  });
}

function drawLeds(px, py, rad, bits) {
  const lamps = [[1, LED.visiting], [2, LED.returning], [4, LED.end]];
  const d = Math.max(2, rad * 0.22);
  lamps.forEach(([bit, fill], k) => {
    ctx.beginPath(); ctx.arc(px + (k - 1) * d * 2.2, py + rad + d + 2, d, 0, 2 * Math.PI);
    ctx.fillStyle = bits & bit ? fill : "rgba(0,0,0,.12)"; ctx.fill();
  });
}

// ---- state updates ---------------------------------------------------------------------------------

function showFrame(frame, previous) {
  for (const r of frame.r) {
    const prev = previous && previous.r.find((p) => p[ID] === r[ID]);
    if (r[COLL] && (!prev || !prev[COLL] || r[COLLS] > prev[COLLS])) view.flashes.set(r[ID], performance.now());
  }
  view.frame = frame;
  $("clock").textContent = `cycle ${frame.t} / ${view.scene ? view.scene.sim_time : "?"}`;
  $("sim-state").textContent = frame.state || "–";
  updateScoreboard(frame);
  view.dirty = true;
}

function appendTrails(frame) {
  for (const r of frame.r) {
    let points = view.trails.get(r[ID]);
    if (!points) view.trails.set(r[ID], points = []);
    const last = points[points.length - 1];
    if (!last || last[0] !== r[X] || last[1] !== r[Y]) points.push([r[X], r[Y]]);
    if (points.length > TRAIL_POINTS) points.shift();
  }
}

function cell(v) { return v === null || v === undefined ? "–" : String(v); }

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
}

function updateScoreboard(frame) {
  const rows = [...frame.r].sort((a, b) => (a[RANK] ?? a[ID]) - (b[RANK] ?? b[ID]) || a[ID] - b[ID]);
  const html = rows.map((r) => {
    const info = view.roster.get(r[ID]);
    const name = escapeHtml(info ? info.name : `robot ${r[ID]}`);
    return `<tr data-id="${r[ID]}"><td>${cell(r[RANK])}</td><td><span class="swatch" style="background:${colour(r[ID])}"></span>` +
           `${r[ID]} ${name}</td><td>${cell(r[SCORE])}</td><td>${cell(r[VISIT])}</td><td>${cell(r[RETURN])}</td>` +
           `<td>${cell(r[COLLS])}</td><td>${cell(r[STATE])}</td></tr>`;
  }).join("");
  if (html !== view.scoreHtml) { $("scoreboard").tBodies[0].innerHTML = html; view.scoreHtml = html; }
}

function setRoster(robots) {
  view.roster = new Map(robots.map(([id, name, ir]) => [id, { name, ir }]));
  for (const id of [...view.trails.keys()]) if (!view.roster.has(id)) view.trails.delete(id);
  const select = $("remove-robot");
  select.innerHTML = robots.map(([id, name]) => `<option value="${id}">${id} ${escapeHtml(name)}</option>`).join("");
  view.scoreHtml = "";
}

// ---- replay ----------------------------------------------------------------------------------------

function startReplay(frames) {
  const cycles = frames.map((f) => f.t);
  view.replay = { frames, cycles, index: 0, playing: false, speed: 1, carry: 0, last: null };
  const seek = $("seek");
  seek.min = cycles[0]; seek.max = cycles[cycles.length - 1]; seek.value = cycles[0];
  $("player").hidden = false;
  goToIndex(0);
}

function indexOfCycle(t) {
  // the last frame of cycle t (frames before the start all have t = 0), or the last one before it
  const { cycles } = view.replay;
  let lo = 0, hi = cycles.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (cycles[mid] <= t) lo = mid; else hi = mid - 1; }
  return lo;
}

function goToIndex(index) {
  const rp = view.replay;
  rp.index = Math.max(0, Math.min(rp.frames.length - 1, index));
  view.trails.clear();
  for (let i = Math.max(0, rp.index - TRAIL_POINTS); i <= rp.index; i++) appendTrails(rp.frames[i]);
  showFrame(rp.frames[rp.index], rp.index > 0 ? rp.frames[rp.index - 1] : null);
  $("seek").value = rp.frames[rp.index].t;
}

function stepCycles(n) {
  const rp = view.replay;
  setPlaying(false);
  goToIndex(indexOfCycle(rp.frames[rp.index].t + n));
}

function setPlaying(on) {
  const rp = view.replay;
  if (on && rp.index >= rp.frames.length - 1) goToIndex(0);
  rp.playing = on; rp.last = null; rp.carry = 0;
  $("play").textContent = on ? "Pause" : "Play";
}

function advanceReplay(now) {
  const rp = view.replay;
  if (!rp || !rp.playing) return;
  if (rp.last !== null) rp.carry += (now - rp.last) * rp.speed / view.scene.cycle_time;
  rp.last = now;
  const steps = Math.floor(rp.carry);
  if (steps <= 0) return;
  rp.carry -= steps;
  const target = Math.min(rp.frames.length - 1, rp.index + steps);
  for (let i = rp.index + 1; i <= target; i++) appendTrails(rp.frames[i]);
  const previous = rp.frames[target - 1];
  rp.index = target;
  showFrame(rp.frames[target], previous);
  $("seek").value = rp.frames[target].t;
  if (target >= rp.frames.length - 1) setPlaying(false);
}

// ---- the socket ------------------------------------------------------------------------------------

function message(text) { $("message").textContent = text; }

function onMessage(event) {
  const msg = JSON.parse(event.data);
  window.simleague.messages += 1;
  switch (msg.type) {
    case "scene":
      view.scene = window.simleague.scene = msg; view.mode = window.simleague.mode = msg.mode;
      $("lab-name").textContent = msg.lab.name || "lab";
      $("panel").hidden = msg.mode !== "live";
      view.trails.clear();
      layout();
      break;
    case "roster": setRoster(msg.robots); break;
    case "frame": {
      const previous = view.frame;
      appendTrails(msg);
      showFrame(msg, previous);
      break;
    }
    case "replay": startReplay(msg.frames); break;
    case "error": message(msg.text); break;
  }
}

function connect() {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
  const socket = view.socket = new WebSocket(url);
  socket.onopen = () => {
    window.simleague.connected = true;
    $("connection").textContent = "online"; $("connection").classList.add("online"); message("");
  };
  socket.onmessage = onMessage;
  socket.onclose = () => {
    window.simleague.connected = false;
    $("connection").textContent = "offline"; $("connection").classList.remove("online");
    if (view.mode !== "replay") setTimeout(connect, 1000);    // the simulator may come back
  };
}

function send(command) {
  if (view.socket && view.socket.readyState === WebSocket.OPEN) view.socket.send(JSON.stringify(command));
  else message("not connected to the simulator");
}

// ---- controls --------------------------------------------------------------------------------------

$("start").onclick = () => send({ cmd: "start" });
$("stop").onclick = () => send({ cmd: "stop" });
$("reset").onclick = () => send({ cmd: "reset" });
$("remove").onclick = () => {
  const id = Number($("remove-robot").value);
  if (id) send({ cmd: "remove", robot: id });
};
$("play").onclick = () => setPlaying(!view.replay.playing);
$("step-back").onclick = () => stepCycles(-1);
$("step-forward").onclick = () => stepCycles(1);
$("speed").onchange = (e) => { view.replay.speed = Number(e.target.value); };
$("seek").oninput = (e) => { setPlaying(false); goToIndex(indexOfCycle(Number(e.target.value))); };
$("show-trails").onchange = $("show-cones").onchange = () => { view.dirty = true; };
document.addEventListener("keydown", (e) => {
  if (!view.replay || e.target.tagName === "SELECT") return;
  if (e.key === " ") { setPlaying(!view.replay.playing); e.preventDefault(); }
  else if (e.key === "ArrowLeft") stepCycles(-1);
  else if (e.key === "ArrowRight") stepCycles(1);
});
new ResizeObserver(layout).observe(canvas);

function tick(now) {
  advanceReplay(now);
  if (view.dirty) { view.dirty = false; draw(now); }
  requestAnimationFrame(tick);
}

connect();
requestAnimationFrame(tick);
