// Sizes every <iframe class="splitbrain"> of the page to the height its widget reports
// ({type: "splitbrain:height", height} through postMessage). Only messages from those iframes
// are used, and only a number is read from them.
addEventListener("message", (e) => {
  if (!e.data || e.data.type !== "splitbrain:height") return;
  const h = Number(e.data.height);
  if (!Number.isFinite(h)) return;
  for (const f of document.querySelectorAll("iframe.splitbrain")) {
    if (f.contentWindow === e.source) f.style.height = Math.min(Math.max(Math.ceil(h), 150), 4000) + "px";
  }
});
