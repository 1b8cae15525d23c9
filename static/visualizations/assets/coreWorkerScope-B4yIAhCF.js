(function(){let e=null;self.onmessage=async({data:t})=>{let{id:n,script:r,wasm:i,calls:a}=t;try{e??=import(
/* @vite-ignore */
r).then(e=>e.default({instantiateWasm:(e,t)=>(WebAssembly.instantiate(i,e).then(e=>t(e,i)),{})}));let t=await e;self.postMessage({id:n,results:a.map(([e,n])=>t[e](n))})}catch(e){self.postMessage({id:n,error:e.message??String(e)})}}})();