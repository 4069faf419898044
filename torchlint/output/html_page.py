"""The style sheet and script of ``--format html`` (see :mod:`torchlint.output.html`).

The script reads the two JSON elements and builds the page with ``textContent`` and
``setAttribute`` only (never ``innerHTML``): text from a linted file is always text.
"""

CSS = r"""
:root{--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;--accent:#0969da;
--bad:#cf222e;--warn:#9a6700;--ok:#1a7f37;--code:#f6f8fa;--brk:#ffebe9;
--g0:#ddf4ff;--g1:#fff1c5;--g2:#dafbe1;--g3:#fbefff;--g4:#ffe6d5;--g5:#d8f6f6;--g6:#eaeef2;--g7:#ffd8eb}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;
--card:#151b23;--accent:#4493f8;--bad:#f85149;--warn:#d29922;--ok:#3fb950;--code:#151b23;--brk:#3c1618;
--g0:#0c2d6b;--g1:#4b3500;--g2:#04260f;--g3:#3c1e70;--g4:#5a1e02;--g5:#05393a;--g6:#2a313c;--g7:#5e103e}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:14px 0 6px}
.muted{color:var(--muted)}a{color:var(--accent)}
code,pre,.src{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(130px,1fr));gap:8px;margin:12px 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 10px;text-align:left;
color:var(--fg);font:inherit;cursor:pointer}
.card b{display:block;font-size:22px}.card.on{outline:2px solid var(--accent)}
.card.fail b{color:var(--bad)}.card.pass b{color:var(--ok)}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0;position:sticky;top:0;background:var(--bg);padding:6px 0;z-index:2}
.bar input,.bar select{font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:6px;padding:4px 8px}
.bar input{flex:1 1 200px;min-width:0}
.file{border:1px solid var(--line);border-radius:8px;margin:10px 0;overflow:hidden}
.file>h3{margin:0;padding:6px 10px;background:var(--card);border-bottom:1px solid var(--line);word-break:break-all}
.finding{padding:8px 10px;border-top:1px solid var(--line)}.finding:first-of-type{border-top:0}
.head{display:flex;flex-wrap:wrap;gap:6px;align-items:baseline}
.tag{border:1px solid var(--line);border-radius:10px;padding:0 7px;font-size:12px;white-space:nowrap}
.tag.error{color:var(--bad)}.tag.warning{color:var(--warn)}
button.rule{font:inherit;font-weight:600;color:var(--accent);background:none;border:0;padding:0;cursor:pointer;text-decoration:underline}
.src{background:var(--code);border-radius:6px;margin:6px 0;overflow-x:auto;white-space:pre}
.row{display:flex;min-width:max-content}.row .n{flex:0 0 4.2em;text-align:right;padding-right:10px;color:var(--muted);user-select:none}
.row .t{flex:1;padding-right:10px}.row.hit{background:var(--brk)}
.row .g{flex:0 0 3.2em;font-size:11px;color:var(--muted);text-align:center}
.fix{margin:4px 0}.diff .add{color:var(--ok)}.diff .del{color:var(--bad)}
details>summary{cursor:pointer;color:var(--accent)}
.page{white-space:pre-wrap;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px;margin:6px 0;max-height:420px;overflow:auto}
.map{border:1px solid var(--line);border-radius:8px;margin:10px 0;overflow:hidden}
.map>h3{margin:0;padding:6px 10px;background:var(--card);border-bottom:1px solid var(--line);word-break:break-all}
.legend{display:flex;flex-wrap:wrap;gap:6px;padding:6px 10px}
.sw{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-2px;margin-right:4px;border:1px solid var(--line)}
.break{background:var(--brk);border-left:4px solid var(--bad);padding:6px 10px;white-space:normal;font:13px/1.4 system-ui,sans-serif;margin:2px 0}
.eager .t{opacity:.75;font-style:italic}.eager{border-left:4px dashed var(--line)}
.timeline{list-style:none;padding:0;margin:6px 0}.timeline li{border-left:3px solid var(--line);padding:2px 10px;margin:0 0 4px}
.timeline li.re{border-color:var(--warn)}.timeline li.rec{border-color:var(--ok)}
.first{font-size:16px;font-weight:600;margin:10px 0 4px}.first a{color:var(--bad)}.then{margin:2px 0 2px 12px}
.cost{margin:4px 0}
.hidden{display:none!important}
@media (max-width:600px){main{padding:8px}.row .n{flex-basis:3em;padding-right:6px}.row .g{flex-basis:2.4em}
.card b{font-size:18px}.bar select{flex:1 1 30%}}
"""

SCRIPT = r"""
(function(){
"use strict";
var R=JSON.parse(document.getElementById("report").textContent);
var X=JSON.parse(document.getElementById("extras").textContent);
var GB_PAGE="https://meta-pytorch.github.io/compile-graph-break-site/gb/";
function el(tag,attrs,kids){var e=document.createElement(tag);
  if(attrs)for(var k in attrs){if(k==="text")e.textContent=attrs[k];else e.setAttribute(k,attrs[k]);}
  (kids||[]).forEach(function(c){if(c!=null)e.appendChild(typeof c==="string"?document.createTextNode(c):c);});return e;}
function code(f){return f.rule||f.gb_code||"dynamo";}
function src(path,n){var s=X.sources[path];return s?s[String(n)]:undefined;}
function targets(f){return f.target?f.target.split(", "):[];}
var main=el("main");document.body.appendChild(main);
var s=R.summary,ts=R.targets||[];
main.appendChild(el("h1",{text:"torchlint report"}));
main.appendChild(el("div",{"class":"muted",text:(R.torch_version?"torch "+R.torch_version+" \u00b7 ":"")+
  (X.dynamic_ran?"static and dynamic passes":"static pass only (no targets run)")}));
// ---------------------------------------------------------------- what the breaks cost: the one to fix first
function measured(f){var i=R.findings.indexOf(f);return X.costs.measured[String(i)];}
if(X.costs.first){var cs=el("section",{id:"costs"});main.appendChild(cs);
  cs.appendChild(el("div",{"class":"first",id:"fix-first"},[el("a",{href:"#finding-"+X.costs.ranked[0].finding,text:X.costs.first})]));
  X.costs.ranked.slice(1).forEach(function(r){cs.appendChild(el("div",{"class":"then"},["then: ",
    el("a",{href:"#finding-"+r.finding,text:r.where}),", "+r.words]));});
  if(X.costs.more)cs.appendChild(el("div",{"class":"then muted",text:"and "+X.costs.more+" more measured"}));}
// ---------------------------------------------------------------- summary cards
var cudaSkips=ts.reduce(function(a,t){return a+(t.cudagraph_skips||0);},0);
var breakHits=s.graph_break_hits==null?ts.reduce(function(a,t){return a+Math.max(t.graph_break_hits||0,t.graph_breaks||0);},0):s.graph_break_hits;
var cards=el("div",{"class":"cards",id:"cards"});main.appendChild(cards);
function card(id,label,value,action,cls){var b=el("button",{"class":"card"+(cls?" "+cls:""),id:id,type:"button"},
  [el("b",{text:String(value)}),label]);b.addEventListener("click",action);cards.appendChild(b);return b;}
var state={q:"",rule:"",source:"",severity:"",card:""};
function setCard(name,patch){return function(){var on=state.card===name;state.card=on?"":name;
  state.rule="";state.source=on?"":(patch.source||"");state.severity=on?"":(patch.severity||"");sync();apply();
  if(!on&&patch.scroll)document.getElementById(patch.scroll).scrollIntoView();};}
card("card-findings","findings",s.findings,setCard("findings",{scroll:"findings"}));
card("card-files","files",s.files,setCard("files",{scroll:"findings"}));
card("card-targets","targets",ts.length,setCard("targets",{scroll:"graphmap"}));
card("card-graphs","graphs",s.graphs==null?"\u2013":s.graphs,setCard("graphs",{scroll:"graphmap"}));
card("card-breaks","graph-break sites / breaks hit",s.graph_breaks==null?"\u2013":s.graph_breaks+" / "+breakHits,
  setCard("breaks",{source:"dynamic+",scroll:"findings"}));
card("card-recompiles","recompiles",s.recompiles==null?"\u2013":s.recompiles,setCard("recompiles",{scroll:"recompiles"}));
card("card-cudagraphs","CUDA-graph skips",cudaSkips,setCard("cudagraphs",{scroll:"recompiles"}));
card("card-errors","errors",s.errors,setCard("errors",{scroll:"errors"}));
var gateFail=X.gate_failures.length>0;
card("card-gate","gate",gateFail?"fail":(X.gate_notes.length?"pass":"\u2013"),setCard("gate",{scroll:"gate"}),
  gateFail?"fail":(X.gate_notes.length?"pass":""));
if(X.gate_failures.length||X.gate_notes.length){var gs=el("section",{id:"gate"},[el("h2",{text:"Gate"})]);
  X.gate_failures.concat(X.gate_notes).forEach(function(l){gs.appendChild(el("div",{text:l}));});main.appendChild(gs);}
// ---------------------------------------------------------------- graph map
var gm=el("section",{id:"graphmap"},[el("h2",{text:"Graph map"})]);main.appendChild(gm);
if(!ts.length)gm.appendChild(el("p",{"class":"muted",text:"No target was run: declare [[tool.torchlint.targets]] to see which lines land in which graph."}));
function gbLink(c){return c?el("a",{href:GB_PAGE+c.toLowerCase()+".html",rel:"noreferrer",target:"_blank",text:c}):null;}
ts.forEach(function(t,ti){
  var box=el("div",{"class":"map target",id:"target-"+ti,"data-target":t.target});gm.appendChild(box);
  var info=t.error?"error: "+t.error:(X.targets[ti].words+(t.ops_per_graph.length?" \u00b7 ops per graph: "+t.ops_per_graph.join(", "):""));
  box.appendChild(el("h3",{},[t.target+" ",el("span",{"class":"muted",text:info})]));
  var gl=t.graph_lines||[];if(!gl.length){if(!t.error)box.appendChild(el("div",{"class":"legend muted",text:"no graph lines recorded"}));return;}
  var legend=el("div",{"class":"legend"});box.appendChild(legend);
  gl.forEach(function(g,gi){legend.appendChild(el("span",{},[el("span",{"class":"sw",style:"background:var(--g"+(gi%8)+")"}),"graph "+(gi+1)]));});
  legend.appendChild(el("span",{"class":"muted",text:gl.length===1?"\u00b7 compiles whole: one graph":"\u00b7 italic, dashed: not in any graph (ran in Python between graphs, or no tensor op)"}));
  var byPath={};gl.forEach(function(g,gi){g.forEach(function(e){var m=byPath[e.path]=byPath[e.path]||{};
    e.lines.forEach(function(n){(m[n]=m[n]||[]).push(gi);});});});
  var brks=R.findings.filter(function(f){return f.source!=="static"&&targets(f).indexOf(t.target)>=0;});
  Object.keys(byPath).sort().forEach(function(path){
    var m=byPath[path],nums=Object.keys(m).map(Number),bl=brks.filter(function(f){return f.path===path;});
    bl.forEach(function(f){nums.push(f.line);});var lo=Math.min.apply(null,nums),hi=Math.max.apply(null,nums);
    var pre=el("div",{"class":"src"});box.appendChild(el("div",{"class":"legend muted",text:path}));box.appendChild(pre);
    var keep={};nums.forEach(function(k){for(var d=-3;d<=1;d++)keep[k+d]=1;});
    var last=-1,gap=0;
    for(var n=lo-3;n<=hi+1;n++){var text=src(path,n);if(text===undefined||!keep[n]){if(n>=lo)gap++;continue;}
      if(gap&&pre.childNodes.length)pre.appendChild(el("div",{"class":"row gap"},[el("span",{"class":"n",text:"\u22ee"}),el("span",{"class":"t muted",text:gap+" line"+(gap===1?"":"s")+" not compiled here"})]));
      if(gap)last=-1;gap=0;var gs=m[n],row;
      if(gs){last=gs[gs.length-1];row=el("div",{"class":"row","data-graph":String(gs[0]),style:"background:var(--g"+(gs[0]%8)+")"},
        [el("span",{"class":"n",text:String(n)}),el("span",{"class":"g",text:gs.map(function(x){return "g"+(x+1);}).join(",")}),el("span",{"class":"t",text:text})]);}
      else{var plain=!text.trim()||/^\s*(#|def |async def |class |@|["'])/.test(text);
        row=el("div",{"class":"row"+(plain||last<0?"":" eager")},[el("span",{"class":"n",text:String(n)}),el("span",{"class":"g",text:""}),el("span",{"class":"t",text:text})]);}
      pre.appendChild(row);
      bl.filter(function(f){return f.line===n;}).forEach(function(f){
        pre.appendChild(el("div",{"class":"break"},[el("b",{text:"graph break"}),": "+(f.reason||f.message)+" ",gbLink(f.gb_code)," ",
          f.rule?el("span",{"class":"tag",text:f.rule}):null,f.suggestion?el("div",{text:"fix: "+f.suggestion}):null,
          measured(f)?el("div",{text:"cost: "+measured(f)}):null]));});
    }
  });
});
// ---------------------------------------------------------------- recompiles and CUDA graphs
var rs=el("section",{id:"recompiles"},[el("h2",{text:"Recompiles and CUDA graphs"})]);main.appendChild(rs);
var anyR=false;
ts.forEach(function(t,ti){var rc=t.recompile_causes||[];if(!rc.length&&!t.cudagraph_skips)return;anyR=true;
  rs.appendChild(el("h3",{text:t.target}));var ul=el("ol",{"class":"timeline"});rs.appendChild(ul);
  ul.appendChild(el("li",{"class":"rec",text:"input set 1: compiled"}));
  rc.forEach(function(c,i){var sets=c.input_sets||[];
    var when=sets.length?"input set"+(sets.length===1?" ":"s ")+sets.join(", ")+": ":"";
    ul.appendChild(el("li",{"class":"re"},[when+"recompiled \u2014 "+X.targets[ti].causes[i],
      el("div",{"class":"muted",text:"frames: "+X.targets[ti].frames[i]}),c.fix?el("div",{text:"fix: "+c.fix}):null]));});
  if(t.cudagraph_skips)ul.appendChild(el("li",{"class":"re",text:t.cudagraph_skips+" graph(s) ran without a CUDA graph (see the findings)"}));});
if(!anyR)rs.appendChild(el("p",{"class":"muted",text:"No recompilation and no CUDA-graph skip was recorded."}));
// ---------------------------------------------------------------- findings
var fs=el("section",{id:"findings"},[el("h2",{text:"Findings"})]);main.appendChild(fs);
function opts(id,label,values){var sel=el("select",{id:id,"aria-label":label},[el("option",{value:"",text:label+": all"})]);
  values.forEach(function(v){sel.appendChild(el("option",{value:v,text:v}));});return sel;}
function uniq(k){var o={};R.findings.forEach(function(f){o[k(f)]=1;});return Object.keys(o).sort();}
var q=el("input",{id:"search",type:"search",placeholder:"search message, path, code\u2026","aria-label":"search"});
var selRule=opts("filter-rule","rule",uniq(code)),selSource=opts("filter-source","source",["static","dynamic","both","not_reached","ran_without_breaking"]),
    selSev=opts("filter-severity","severity",["error","warning"]);
var count=el("span",{"class":"muted",id:"count"});
fs.appendChild(el("div",{"class":"bar"},[q,selRule,selSource,selSev,count]));
var list=el("div",{id:"list"});fs.appendChild(list);
var items=[],files={};
function excerpt(f){var pre=el("div",{"class":"src"});
  for(var n=Math.max(1,f.line-2);n<=f.end_line+2;n++){var text=src(f.path,n);if(text===undefined)continue;
    pre.appendChild(el("div",{"class":"row"+(n>=f.line&&n<=f.end_line?" hit":"")},[el("span",{"class":"n",text:String(n)}),el("span",{"class":"t",text:text})]));}
  return pre.childNodes.length?pre:null;}
function diffView(text){var pre=el("div",{"class":"src diff"});text.split("\n").forEach(function(l){
  pre.appendChild(el("div",{"class":l[0]==="+"&&l.slice(0,3)!=="+++"?"add":(l[0]==="-"&&l.slice(0,3)!=="---"?"del":""),text:l}));});return pre;}
R.findings.forEach(function(f,i){
  var box=files[f.path];if(!box){box=files[f.path]=el("div",{"class":"file","data-path":f.path},[el("h3",{text:f.path})]);list.appendChild(box);}
  var rule=el("button",{"class":"rule",type:"button",id:"rule-"+i,title:"show the rule page",text:code(f)});
  var div=el("div",{"class":"finding",id:"finding-"+i,"data-rule":code(f),"data-source":f.source,"data-severity":f.severity},[
    el("div",{"class":"head"},[rule,el("span",{text:f.path+":"+f.line+":"+f.column}),el("span",{"class":"tag "+f.severity,text:f.severity}),
      el("span",{"class":"tag",text:f.source}),f.mode?el("span",{"class":"tag",text:f.mode==="train"?"training only":"eval only"}):null,f.dynamo?el("span",{"class":"tag",text:String(f.dynamo).replace(/_/g," ")}):null,f.gb_code?gbLink(f.gb_code):null,f.target?el("span",{"class":"muted",text:"target: "+f.target}):null]),
    el("div",{"class":"msg",text:f.message}),excerpt(f),
    f.suggestion?el("div",{"class":"fix"},[el("b",{text:"fix: "}),f.suggestion]):null,
    X.costs.measured[String(i)]?el("div",{"class":"cost",id:"cost-"+i},[el("b",{text:"cost: "}),X.costs.measured[String(i)]]):null,
    f.fix?el("div",{"class":"muted",text:(f.fix.applicability==="safe"?"automatic fix (safe): ":"automatic fix (unsafe, --unsafe-fixes): ")+f.fix.description}):null,
    X.diffs[String(i)]?el("details",{},[el("summary",{text:"the fix as a diff"}),diffView(X.diffs[String(i)])]):null,
    f.explanation?el("div",{"class":"muted",text:f.explanation}):null]);
  var pageBox=null;rule.addEventListener("click",function(){
    if(pageBox){pageBox.classList.toggle("hidden");return;}
    var text=f.rule&&X.pages[f.rule];pageBox=el("div",{"class":"page rulepage",text:text||(f.gb_code?"dynamo graph break "+f.gb_code+": "+(f.reason||""):"no rule page")});
    if(!text&&f.gb_code)pageBox.appendChild(el("div",{},[gbLink(f.gb_code)]));div.appendChild(pageBox);});
  box.appendChild(div);
  items.push({el:div,box:box,f:f,hay:(f.message+" "+f.path+" "+code(f)+" "+(f.suggestion||"")+" "+(f.target||"")).toLowerCase()});
});
if(!R.findings.length)list.appendChild(el("p",{text:"No findings."}));
if(R.errors.length){var es=el("section",{id:"errors"},[el("h2",{text:"Errors"})]);main.appendChild(es);
  R.errors.forEach(function(e){es.appendChild(el("div",{"class":"error"},[el("b",{text:e.path}),": "+e.message]));});}
function sync(){q.value=state.q;selRule.value=state.rule;selSource.value=state.source==="dynamic+"?"":state.source;selSev.value=state.severity;
  Array.prototype.forEach.call(cards.children,function(c){c.classList.toggle("on",c.id==="card-"+state.card);});}
function apply(){var shown=0,open={};var words=state.q.toLowerCase();
  items.forEach(function(it){var f=it.f,ok=(!state.rule||code(f)===state.rule)&&(!state.severity||f.severity===state.severity)&&
    (!state.source||(state.source==="dynamic+"?f.source!=="static":(f.source===state.source||f.dynamo===state.source)))&&(!words||it.hay.indexOf(words)>=0);
    it.el.classList.toggle("hidden",!ok);if(ok){shown++;open[f.path]=1;}});
  Object.keys(files).forEach(function(p){files[p].classList.toggle("hidden",!open[p]);});
  count.textContent=shown+" of "+items.length+" shown";document.body.setAttribute("data-shown",String(shown));}
q.addEventListener("input",function(){state.q=q.value;apply();});
selRule.addEventListener("change",function(){state.rule=selRule.value;state.card="";sync();apply();});
selSource.addEventListener("change",function(){state.source=selSource.value;state.card="";sync();apply();});
selSev.addEventListener("change",function(){state.severity=selSev.value;state.card="";sync();apply();});
apply();
void document.body.offsetHeight;  // lay the page out before taking the time
document.body.setAttribute("data-render-ms",String(Math.round(performance.now())));
// #click=ID,ID... replays clicks after the page is drawn (for scripted screenshots and checks);
// #select=ID:VALUE picks an option the same way a user does.
var h=decodeURIComponent(location.hash.slice(1));
h.split("&").forEach(function(part){var kv=part.split("=");if(kv.length<2)return;var t0=performance.now();
  if(kv[0]==="click")kv[1].split(",").forEach(function(id){var e=document.getElementById(id);if(e)e.click();});
  if(kv[0]==="select"){var p=kv[1].split(":"),e=document.getElementById(p[0]);if(e){e.value=p.slice(1).join(":");e.dispatchEvent(new Event("input"));e.dispatchEvent(new Event("change"));}}
  if(kv[0]==="section")Array.prototype.forEach.call(main.children,function(c){
    if(c.tagName==="SECTION"&&c.id!==kv[1])c.classList.add("hidden");});
  if(kv[0]==="scroll"){var e2=document.getElementById(kv[1]);if(e2)e2.scrollIntoView();}
  void document.body.offsetHeight;
  document.body.setAttribute("data-action-ms",String(Math.round((performance.now()-t0)*10)/10));});
document.body.setAttribute("data-ready","1");
})();
"""
