// The soccer field from above: field lines, goals, ball, robots with their number in the team's
// colour; score, game time and play mode in the header. Messages: see simleague/simspark/web.py.
"use strict";

// team colours by side; a scene may give its own (the humanoid API's red and blue teams)
const COLOURS = {left: "#1f5fd1", right: "#d62728", null: "#888888"};
const canvas = document.getElementById("canvas");
const ctx = canvas.getContext("2d");
const state = {field: null, frame: null, replay: null, index: 0, playing: false, speed: 1, timer: null};
// what the last frame drew, for tests: robots' field and canvas coordinates
window.simleague = {drawn: []};

function $(id) { return document.getElementById(id); }

function view() {
  // the canvas fills the arena (viewer.css); the field, with a margin, is centred in it
  const f = state.field, margin = 1.0;
  const w = f.length + 2 * (f.goal_depth + margin), h = f.width + 2 * margin;
  const box = $("arena").getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(box.width));
  canvas.height = Math.max(1, Math.round(box.height));
  const scale = Math.max(1e-3, Math.min(canvas.width / w, canvas.height / h));
  const ox = canvas.width / 2, oy = canvas.height / 2;
  return {scale, x: (x) => ox + x * scale, y: (y) => oy - y * scale};
}

function drawField(v) {
  const f = state.field, s = v.scale;
  ctx.fillStyle = "#1b5e20";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#2e7d32";
  ctx.fillRect(v.x(-f.length / 2 - 1), v.y(f.width / 2 + 1), (f.length + 2) * s, (f.width + 2) * s);
  ctx.strokeStyle = "#ffffff";
  ctx.lineWidth = Math.max(1, 0.05 * s);
  const hl = f.length / 2, hw = f.width / 2;
  ctx.strokeRect(v.x(-hl), v.y(hw), f.length * s, f.width * s);
  ctx.beginPath(); ctx.moveTo(v.x(0), v.y(hw)); ctx.lineTo(v.x(0), v.y(-hw)); ctx.stroke();
  ctx.beginPath(); ctx.arc(v.x(0), v.y(0), f.circle * s, 0, 2 * Math.PI); ctx.stroke();
  for (const side of [-1, 1]) {
    const px = side * (hl - f.penalty_length);
    ctx.strokeRect(Math.min(v.x(px), v.x(side * hl)), v.y(f.penalty_width / 2), f.penalty_length * s, f.penalty_width * s);
    if (f.goal_area_length) {                          // the humanoid league's goal area and penalty mark
      const gx = side * (hl - f.goal_area_length);
      ctx.strokeRect(Math.min(v.x(gx), v.x(side * hl)), v.y(f.goal_area_width / 2), f.goal_area_length * s,
                     f.goal_area_width * s);
      ctx.fillStyle = "#ffffff";
      ctx.beginPath(); ctx.arc(v.x(side * (hl - f.penalty_mark)), v.y(0), Math.max(1.5, 0.05 * s), 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.fillStyle = side < 0 ? COLOURS.left : COLOURS.right;
    const gx = side < 0 ? v.x(-hl - f.goal_depth) : v.x(hl);
    ctx.fillRect(gx, v.y(f.goal_width / 2), f.goal_depth * s, f.goal_width * s);
  }
}

function drawFrame(fr) {
  if (!state.field) return;
  if (fr.colours) Object.assign(COLOURS, fr.colours);   // the humanoid teams change ends at half time
  const v = view(), s = v.scale;
  drawField(v);
  const drawn = [];
  const r = Math.max(5, 0.3 * s);
  for (const [side, unum, type, x, y, heading, upright] of fr.robots) {
    const cx = v.x(x), cy = v.y(y), a = heading * Math.PI / 180;
    ctx.fillStyle = COLOURS[side];
    ctx.globalAlpha = upright ? 1 : 0.5;
    ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.fill();
    ctx.globalAlpha = 1;
    ctx.strokeStyle = "#000000"; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(cx + 1.6 * r * Math.cos(a), cy - 1.6 * r * Math.sin(a)); ctx.stroke();
    ctx.fillStyle = "#ffffff";
    ctx.font = `bold ${Math.round(r * 1.1)}px sans-serif`;
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    if (unum !== null) ctx.fillText(String(unum), cx, cy);
    drawn.push({side, unum, x, y, px: cx, py: cy, radius: r});
  }
  const [bx, by] = fr.ball;
  ctx.fillStyle = "#ff9800";
  ctx.beginPath(); ctx.arc(v.x(bx), v.y(by), Math.max(3, 0.12 * s), 0, 2 * Math.PI); ctx.fill();
  window.simleague.drawn = drawn;
  window.simleague.frame = fr;
  window.simleague.ball = {x: bx, y: by, px: v.x(bx), py: v.y(by)};
  const [left, right] = fr.teams;
  $("score").textContent = `${left || "–"} ${fr.score[0]} : ${fr.score[1]} ${right || "–"}`;
  $("clock").textContent = `${fr.t.toFixed(1)} s (half ${fr.half})`;
  $("play-mode").textContent = fr.pm;
  const rows = [];
  for (const [i, side] of ["left", "right"].entries()) {
    const mine = fr.robots.filter((rb) => rb[0] === side);
    rows.push(`<tr><td>${fr.teams[i] || "–"}</td><td style="color:${COLOURS[side]}">${side}</td>` +
              `<td>${mine.length}</td><td>${mine.filter((rb) => !rb[6]).length}</td></tr>`);
  }
  $("scoreboard").querySelector("tbody").innerHTML = rows.join("");
}

function showReplay(i) {
  state.index = Math.max(0, Math.min(state.replay.length - 1, i));
  $("seek").value = state.index;
  drawFrame(state.replay[state.index]);
}

function play(on) {
  state.playing = on;
  $("play").textContent = on ? "Pause" : "Play";
  clearInterval(state.timer);
  if (on) state.timer = setInterval(() => {
    if (state.index >= state.replay.length - 1) return play(false);
    showReplay(state.index + state.speed);
  }, 40);
}

$("play").onclick = () => play(!state.playing);
$("speed").onchange = (e) => { state.speed = Number(e.target.value); };
$("seek").oninput = (e) => showReplay(Number(e.target.value));
document.addEventListener("keydown", (e) => { if (e.key === " " && state.replay) { e.preventDefault(); play(!state.playing); } });
window.addEventListener("resize", () => state.frame && drawFrame(state.frame));

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => { $("connection").textContent = "online"; };
  ws.onclose = () => { $("connection").textContent = "offline"; setTimeout(connect, 1000); };
  ws.onmessage = (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "scene") {
      state.field = m.field;
      $("title").textContent = m.title || "Soccer";
      document.title = `${m.title || "Soccer"} · simleague`;
      Object.assign(COLOURS, m.colours || {});
      $("player").hidden = m.mode !== "replay";
    } else if (m.type === "frame") {
      state.frame = m;
      drawFrame(m);
    } else if (m.type === "replay") {
      state.replay = m.frames;
      $("seek").max = m.frames.length - 1;
      showReplay(0);
    } else if (m.type === "error") {
      $("message").textContent = m.text;
    }
  };
}
connect();
