// ipywidgets' html-manager typesets widget labels with the MathJax 2 API
// (MathJax.Hub.Queue(["Typeset", MathJax.Hub, element])). The site runs MathJax 3,
// so map that call onto MathJax.typesetPromise, before and after MathJax starts.
(function () {
  function queue(job) {
    var element = job && job[2];
    var mj = window.MathJax;
    if (mj && mj.typesetPromise) {
      mj.typesetPromise(element ? [element] : undefined).catch(function () {});
    }
  }
  var config = window.MathJax || {};
  config.startup = config.startup || {};
  var ready = config.startup.ready;
  config.startup.ready = function () {
    if (ready) { ready(); } else { window.MathJax.startup.defaultReady(); }
    window.MathJax.Hub = { Queue: queue };
  };
  config.Hub = { Queue: queue };
  window.MathJax = config;
})();
