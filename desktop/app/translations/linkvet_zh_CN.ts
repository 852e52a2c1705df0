<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CandidatesPage</name>
    <message>
        <source>any of its offerings in the region</source>
        <translation>该区域的任一产品</translation>
    </message>
    <message>
        <source>the vendor {id}</source>
        <translation>服务商 {id}</translation>
    </message>
    <message>
        <source>the region {id}</source>
        <translation>区域 {id}</translation>
    </message>
    <message>
        <source>Not in the catalogs: {what} will be created in your catalogs with its name only; nothing else is claimed until the vendor answers the questionnaire.</source>
        <translation>服务商名录中没有：将在你的名录中创建{what}，只记名称；在服务商回答问卷之前，不记任何宣称。</translation>
    </message>
    <message>
        <source> and </source>
        <translation>和</translation>
    </message>
    <message>
        <source>provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>{provider}/{region}: a new region needs a test address to measure</source>
        <translation>{provider}/{region}：新区域需要一个测试地址才能测量</translation>
    </message>
    <message>
        <source>{provider}/{region} is in the list already</source>
        <translation>{provider}/{region} 已在列表中</translation>
    </message>
    <message>
        <source>new vendor and region</source>
        <translation>新服务商和新区域</translation>
    </message>
    <message>
        <source>new region</source>
        <translation>新区域</translation>
    </message>
    <message>
        <source>from the catalogs</source>
        <translation>来自服务商名录</translation>
    </message>
    <message>
        <source>the region&apos;s endpoints in the catalogs</source>
        <translation>名录中该区域的端点</translation>
    </message>
    <message>
        <source>The candidates</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>The regions you are choosing between, each with the addresses its line is measured to.</source>
        <translation>你要从中选择的区域，每个都带上用来测量线路的地址。</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Vendor name</source>
        <translation>服务商名称</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Region name</source>
        <translation>区域名称</translation>
    </message>
    <message>
        <source>Offering</source>
        <translation>产品</translation>
    </message>
    <message>
        <source>Test addresses</source>
        <translation>测试地址</translation>
    </message>
    <message>
        <source>pick one, or type a new vendor&apos;s id (e.g. vendorb)</source>
        <translation>选择一个，或输入新服务商的 ID（例如 vendorb）</translation>
    </message>
    <message>
        <source>a new vendor&apos;s name (e.g. Vendor B)</source>
        <translation>新服务商的名称（例如 Vendor B）</translation>
    </message>
    <message>
        <source>a new region&apos;s name (e.g. Tokyo 2)</source>
        <translation>新区域的名称（例如 东京 2）</translation>
    </message>
    <message>
        <source>the vendor&apos;s test IP, host:port or a test file&apos;s URL, separated by spaces</source>
        <translation>服务商的测试 IP、主机:端口或测试文件的 URL，以空格分隔</translation>
    </message>
    <message>
        <source>Add the candidate</source>
        <translation>添加候选</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>In the catalogs</source>
        <translation>名录中</translation>
    </message>
</context>
<context>
    <name>CatalogActions</name>
    <message>
        <source>Delete an offering</source>
        <translation>删除产品</translation>
    </message>
    <message>
        <source>Delete {provider}/{offering} from your catalogs? Every fact you gave it goes; the bundled catalogs are not touched.</source>
        <translation>从我的名录中删除 {provider}/{offering}？您为它填写的所有事实都会删除；内置名录不受影响。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Keep it</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>{provider}/{offering} deleted from your catalogs.</source>
        <translation>已从我的名录中删除 {provider}/{offering}。</translation>
    </message>
    <message>
        <source>Copy to my catalogs</source>
        <translation>复制到我的名录</translation>
    </message>
    <message>
        <source>The copy of {provider}/{offering} in your catalogs (each fact keeps its source), under the id:</source>
        <translation>{provider}/{offering} 在我的名录中的副本（每个事实保留其来源），ID 为：</translation>
    </message>
    <message>
        <source>{provider}/{offering} copied to your catalogs as {copy}.</source>
        <translation>已将 {provider}/{offering} 复制到我的名录，ID 为 {copy}。</translation>
    </message>
    <message>
        <source>Your catalogs were not changed</source>
        <translation>我的名录未更改</translation>
    </message>
    <message>
        <source>New offering…</source>
        <translation>新建产品…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>A bundled offering is not deleted or changed in place: copy it into your catalogs to make it yours.</source>
        <translation>内置产品不能直接删除或修改：请先复制到我的名录，再按需编辑。</translation>
    </message>
    <message>
        <source>Questionnaire</source>
        <translation>问卷</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
</context>
<context>
    <name>CatalogScreen</name>
    <message>
        <source>Loading the catalogs…</source>
        <translation>正在加载名录…</translation>
    </message>
    <message>
        <source>all providers</source>
        <translation>全部服务商</translation>
    </message>
    <message>
        <source>Some catalog files were skipped:</source>
        <translation>部分名录文件已跳过：</translation>
    </message>
    <message>
        <source>Catalogs not loaded</source>
        <translation>名录未加载</translation>
    </message>
    <message>
        <source>{shown} of {total} offerings · &apos;?&apos; = not stated by the source (unknown, not false)</source>
        <translation>显示 {shown}/{total} 个产品 · “?” = 来源未说明（未知，并非否定）</translation>
    </message>
    <message>
        <source>not stated</source>
        <translation>未说明</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>每节点 GPU 数</translation>
    </message>
    <message>
        <source>Memory per GPU (GB)</source>
        <translation>单卡显存（GB）</translation>
    </message>
    <message>
        <source>In the node</source>
        <translation>节点内互联</translation>
    </message>
    <message>
        <source>Between nodes</source>
        <translation>节点间网络</translation>
    </message>
    <message>
        <source>× {rails} rails</source>
        <translation>× {rails} 轨</translation>
    </message>
    <message>
        <source>RDMA</source>
        <translation>RDMA</translation>
    </message>
    <message>
        <source>Max nodes</source>
        <translation>最大节点数</translation>
    </message>
    <message>
        <source>CPU / vCPUs / RAM GiB</source>
        <translation>CPU / vCPU / 内存 GiB</translation>
    </message>
    <message>
        <source>Local NVMe (TB)</source>
        <translation>本地 NVMe（TB）</translation>
    </message>
    <message>
        <source>Shared file system</source>
        <translation>共享文件系统</translation>
    </message>
    <message>
        <source>BMC/IPMI</source>
        <translation>BMC/IPMI</translation>
    </message>
    <message>
        <source>Power redundancy</source>
        <translation>电源冗余</translation>
    </message>
    <message>
        <source>Cooling</source>
        <translation>散热</translation>
    </message>
    <message>
        <source>Lowest price per GPU-hour</source>
        <translation>最低每 GPU 小时价格</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>GPU reference: {name}</source>
        <translation>GPU 参考：{name}</translation>
    </message>
    <message>
        <source>Memory (GB)</source>
        <translation>显存（GB）</translation>
    </message>
    <message>
        <source>BF16 dense TFLOPS</source>
        <translation>BF16 稠密 TFLOPS</translation>
    </message>
    <message>
        <source>Interconnect (GB/s, bidirectional)</source>
        <translation>互联带宽（GB/s，双向）</translation>
    </message>
    <message>
        <source>Regions of {provider}</source>
        <translation>{provider} 的区域</translation>
    </message>
    <message numerus="yes">
        <source>%n probe endpoint(s)</source>
        <translation>
            <numerusform>%n 个探测端点</numerusform>
        </translation>
    </message>
    <message>
        <source>Service</source>
        <translation>服务</translation>
    </message>
    <message>
        <source>Support</source>
        <translation>技术支持</translation>
    </message>
    <message>
        <source>SLA uptime %</source>
        <translation>SLA 可用性 %</translation>
    </message>
    <message>
        <source>DDoS protection</source>
        <translation>DDoS 防护</translation>
    </message>
    <message>
        <source>Delivery (days)</source>
        <translation>交付周期（天）</translation>
    </message>
    <message>
        <source>Billing</source>
        <translation>计费方式</translation>
    </message>
    <message>
        <source>{added} of {total} endpoints of {provider}/{region} added to the probe list.</source>
        <translation>{provider}/{region} 的 {total} 个端点中有 {added} 个已加入探测列表。</translation>
    </message>
    <message>
        <source>Skipped: {problems}</source>
        <translation>已跳过：{problems}</translation>
    </message>
    <message>
        <source>No application opens {path} here.</source>
        <translation>本机没有可打开 {path} 的应用程序。</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>服务商名录</translation>
    </message>
    <message>
        <source>Search provider, offering, GPU, region…</source>
        <translation>搜索服务商、产品、GPU、区域…</translation>
    </message>
    <message>
        <source>all GPUs</source>
        <translation>全部 GPU</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>NVLink/NVSwitch only</source>
        <translation>仅 NVLink/NVSwitch</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Add its probe endpoints to the probe list</source>
        <translation>将其探测端点加入探测列表</translation>
    </message>
    <message>
        <source>Open the provider&apos;s catalog file</source>
        <translation>打开服务商名录文件</translation>
    </message>
    <message>
        <source>{fact}: contradicted by a trial server ({source})</source>
        <translation>{fact}：已被试用服务器否定（{source}）</translation>
    </message>
    <message>
        <source>Offering</source>
        <translation>产品</translation>
    </message>
    <message>
        <source>GPUs/node</source>
        <translation>GPU/节点</translation>
    </message>
    <message>
        <source>GB/GPU</source>
        <translation>GB/GPU</translation>
    </message>
    <message>
        <source>BF16 TFLOPS</source>
        <translation>BF16 TFLOPS</translation>
    </message>
    <message>
        <source>Regions</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>From $/GPU-h</source>
        <translation>起价 $/GPU·时</translation>
    </message>
    <message>
        <source>As of</source>
        <translation>数据日期</translation>
    </message>
</context>
<context>
    <name>CatalogTargetsDialog</name>
    <message>
        <source>Targets from the catalogs</source>
        <translation>从名录选择目标</translation>
    </message>
    <message>
        <source>Tick regions (or whole providers) to probe their public test endpoints. Each target keeps the region&apos;s provider, id and claimed line type, so its measurements join the catalog.</source>
        <translation>勾选区域（或整个服务商）以探测其公开测试端点。每个目标都保留区域的服务商、ID 和宣称的线路类型，测量结果可与名录关联。</translation>
    </message>
    <message>
        <source>Provider / region / endpoint</source>
        <translation>服务商 / 区域 / 端点</translation>
    </message>
    <message>
        <source>Claimed line</source>
        <translation>宣称线路</translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation>端点</translation>
    </message>
</context>
<context>
    <name>ChartsScreen</name>
    <message>
        <source>all vantage points</source>
        <translation>全部测量点</translation>
    </message>
    <message>
        <source>No measurements yet: run a probe (Probe screen) or `linkvet schedule`.</source>
        <translation>尚无测量数据：请运行一次探测（“探测”页面）或 `linkvet schedule`。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Drawn in {seconds:.2f} s · hours in {zone}</source>
        <translation>绘制用时 {seconds:.2f} 秒 · 时段按 {zone} 时间</translation>
    </message>
    <message>
        <source>{target}: nothing measured in this period; last measured {when} (choose a longer period)</source>
        <translation>{target}：此时间范围内没有测量；最近一次测量在 {when}（请选更长的时间范围）</translation>
    </message>
    <message>
        <source>{path}: could not write the PNG</source>
        <translation>{path}：无法写入 PNG</translation>
    </message>
    <message>
        <source>Save chart as PNG</source>
        <translation>将图表保存为 PNG</translation>
    </message>
    <message>
        <source>Chart not saved</source>
        <translation>图表未保存</translation>
    </message>
    <message>
        <source>Chart saved to {path}</source>
        <translation>图表已保存到 {path}</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>最近 1 小时</translation>
    </message>
    <message>
        <source>Last 6 hours</source>
        <translation>最近 6 小时</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>最近 24 小时</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>Everything</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Period</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>Vantage point</source>
        <translation>测量点</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Save as PNG…</source>
        <translation>保存为 PNG…</translation>
    </message>
    <message>
        <source>Click a target for its timeline and heatmap; tick several to compare them by hour of day and CDF.</source>
        <translation>单击一个目标查看其时间线和热力图；勾选多个目标可按小时分布和 CDF 进行对比。</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Hour of day</source>
        <translation>按小时分布</translation>
    </message>
    <message>
        <source>Day × hour</source>
        <translation>日期 × 小时</translation>
    </message>
    <message>
        <source>RTT distribution (CDF)</source>
        <translation>RTT 分布（CDF）</translation>
    </message>
    <message>
        <source>Offices compared</source>
        <translation>各测量点对比</translation>
    </message>
    <message>
        <source>Colour by</source>
        <translation>着色依据</translation>
    </message>
    <message>
        <source>median RTT</source>
        <translation>RTT 中位数</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>丢包</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>线路</translation>
    </message>
    <message>
        <source>Provider / region</source>
        <translation>服务商 / 区域</translation>
    </message>
    <message>
        <source>RTT (ms)</source>
        <translation>RTT（毫秒）</translation>
    </message>
    <message>
        <source>loss %</source>
        <translation>丢包率 %</translation>
    </message>
    <message>
        <source>median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <source>p95</source>
        <translation>p95</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>丢失</translation>
    </message>
    <message>
        <source>no data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>replies</source>
        <translation>回复</translation>
    </message>
    <message>
        <source>hour of day</source>
        <translation>一天中的小时</translation>
    </message>
    <message>
        <source>attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>replies at or below (%)</source>
        <translation>不高于该值的回复占比（%）</translation>
    </message>
    <message>
        <source>{n} attempts</source>
        <translation>{n} 次尝试</translation>
    </message>
    <message>
        <source>1 round</source>
        <translation>1 轮</translation>
    </message>
    <message>
        <source>{n} rounds</source>
        <translation>{n} 轮</translation>
    </message>
    <message>
        <source>bins of {width}</source>
        <translation>每格 {width}</translation>
    </message>
    <message>
        <source>d h min s</source>
        <translation>天 小时 分钟 秒</translation>
    </message>
    <message>
        <source>Too little data for p5–p95 boxes: a box needs {need} replies, the fullest bin has {most}.</source>
        <translation>数据太少，画不出 p5–p95 框：一个框需要 {need} 个回复，最多的一格只有 {most} 个。</translation>
    </message>
    <message>
        <source>{count} of {total} bins have fewer than {need} replies: min–max only there.</source>
        <translation>{total} 格中有 {count} 格回复少于 {need} 个：这些格只画最小–最大框。</translation>
    </message>
    <message>
        <source>Too little data for boxes: at most one reply per bin; the line joins the replies.</source>
        <translation>数据太少，画不出框：每格最多一个回复；折线连接各个回复。</translation>
    </message>
    <message>
        <source>No replies: every attempt was lost (the loss bars below).</source>
        <translation>没有回复：每次尝试都丢失了（见下方丢包柱）。</translation>
    </message>
    <message>
        <source>{name}: {hours} of 24 hours measured, on {days} days at most</source>
        <translation>{name}：24 小时中测了 {hours} 小时，每个小时最多 {days} 天</translation>
    </message>
    <message>
        <source>{name}: every hour from a single day: that day&apos;s values, not a typical day</source>
        <translation>{name}：每个小时都只来自一天：这是那一天的数值，不代表典型的一天</translation>
    </message>
    <message>
        <source>p95 left out where an hour has fewer than {need} replies</source>
        <translation>回复少于 {need} 个的小时不画 p95</translation>
    </message>
    <message>
        <source>Hours measured: {cells} · days with data: {days} of {span}</source>
        <translation>已测小时：{cells} · 有数据的天数：{days}/{span}</translation>
    </message>
    <message>
        <source>Mon Tue Wed Thu Fri Sat Sun</source>
        <translation>周一 周二 周三 周四 周五 周六 周日</translation>
    </message>
    <message>
        <source>Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec</source>
        <translation>1月 2月 3月 4月 5月 6月 7月 8月 9月 10月 11月 12月</translation>
    </message>
    <message>
        <source>Too little data for a distribution: {names} (fewer than {need} replies; n in the legend)</source>
        <translation>数据太少，分布不可信：{names}（回复少于 {need} 个；个数见图例 n）</translation>
    </message>
    <message>
        <source>median RTT (ms)</source>
        <translation>RTT 中位数（毫秒）</translation>
    </message>
</context>
<context>
    <name>EvaluationWizard</name>
    <message>
        <source>Writing the evaluation…</source>
        <translation>正在写入评估…</translation>
    </message>
    <message>
        <source>Created in your catalogs: {what}</source>
        <translation>已在你的名录中创建：{what}</translation>
    </message>
    <message>
        <source>New evaluation</source>
        <translation>新建评估</translation>
    </message>
</context>
<context>
    <name>EvidenceActions</name>
    <message>
        <source>Measure now</source>
        <translation>立即测量</translation>
    </message>
    <message>
        <source>Start measuring</source>
        <translation>开始测量</translation>
    </message>
    <message>
        <source>Test URL…</source>
        <translation>测试 URL…</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>Send the questionnaire…</source>
        <translation>发送问卷…</translation>
    </message>
    <message>
        <source>Import answers…</source>
        <translation>导入回答…</translation>
    </message>
    <message>
        <source>Import report…</source>
        <translation>导入报告…</translation>
    </message>
    <message>
        <source>Copy the command</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>Questionnaire</source>
        <translation>问卷</translation>
    </message>
    <message>
        <source>Next…</source>
        <translation>下一步…</translation>
    </message>
    <message>
        <source>Measured from {office}: run this there: {command}</source>
        <translation>由 {office} 测量：请在那里运行：{command}</translation>
    </message>
    <message>
        <source>One round now from this computer (every candidate).</source>
        <translation>立即从本机测量一轮（所有候选）。</translation>
    </message>
    <message>
        <source>Measure in the background, denser at peak hours, until stopped.</source>
        <translation>在后台持续测量，晚高峰时更密集，直到停止。</translation>
    </message>
    <message>
        <source>The download and under-load tests need a file on the vendor&apos;s server.</source>
        <translation>下载测试和负载下时延测试需要服务商服务器上的一个文件。</translation>
    </message>
    <message>
        <source>Trace the route to the candidate&apos;s addresses and check it against the claim.</source>
        <translation>追踪到候选地址的路由，并与宣称的线路核对。</translation>
    </message>
    <message>
        <source>A workbook of what the catalogs do not know, for the vendor.</source>
        <translation>一份列出名录中未知信息的工作簿，发给服务商填写。</translation>
    </message>
    <message>
        <source>The vendor&apos;s answered questionnaire, previewed before it is written.</source>
        <translation>服务商填好的问卷，写入前先预览。</translation>
    </message>
    <message>
        <source>The report `linkvet accept` wrote on the trial server (its checks and return route).</source>
        <translation>在试用服务器上由 `linkvet accept` 写出的报告（其检查项和回程路由）。</translation>
    </message>
    <message>
        <source>Copied: {command} (run it on a computer in {office})</source>
        <translation>已复制：{command}（请在 {office} 的电脑上运行）</translation>
    </message>
    <message>
        <source>Measuring one round of {name} now…</source>
        <translation>正在立即测量 {name} 的一轮…</translation>
    </message>
    <message>
        <source>One round measured and stored.</source>
        <translation>已测量一轮并存入结果库。</translation>
    </message>
    <message>
        <source>One round stored; some targets could not be measured (hover the cells).</source>
        <translation>已存入一轮；部分目标未能测量（将鼠标悬停在单元格上查看）。</translation>
    </message>
    <message>
        <source>Nothing measured</source>
        <translation>未测量任何内容</translation>
    </message>
    <message>
        <source>Add a test URL</source>
        <translation>添加测试 URL</translation>
    </message>
    <message>
        <source>A file on {candidate}&apos;s server to download (http:// or https://):</source>
        <translation>{candidate} 服务器上用于下载的文件（http:// 或 https://）：</translation>
    </message>
    <message>
        <source>No test URL added</source>
        <translation>未添加测试 URL</translation>
    </message>
    <message>
        <source>An acceptance report</source>
        <translation>验收报告</translation>
    </message>
    <message>
        <source>Acceptance reports (*.json)</source>
        <translation>验收报告 (*.json)</translation>
    </message>
    <message>
        <source>Report not imported</source>
        <translation>报告未导入</translation>
    </message>
    <message>
        <source>Imported the report from {host}: {checks} check(s), {changes} fact(s) changed.</source>
        <translation>已导入来自 {host} 的报告：{checks} 项检查，{changes} 条事实有变化。</translation>
    </message>
</context>
<context>
    <name>EvidenceModel</name>
    <message>
        <source>Candidate</source>
        <translation>候选</translation>
    </message>
    <message>
        <source>off-peak / peak</source>
        <translation>非高峰 / 晚高峰</translation>
    </message>
    <message>
        <source>Line, ms</source>
        <translation>线路（毫秒）</translation>
    </message>
    <message>
        <source>Under load</source>
        <translation>负载下时延</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐</translation>
    </message>
    <message>
        <source>Route out</source>
        <translation>去程路由</translation>
    </message>
    <message>
        <source>Route back</source>
        <translation>回程路由</translation>
    </message>
    <message>
        <source>Vendor&apos;s answers</source>
        <translation>服务商回答</translation>
    </message>
    <message>
        <source>Acceptance</source>
        <translation>验收</translation>
    </message>
    <message>
        <source>Price</source>
        <translation>价格</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>partial</source>
        <translation>部分</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>contradicted</source>
        <translation>与实测不符</translation>
    </message>
    <message>
        <source>{state}: {figure}</source>
        <translation>{state}：{figure}</translation>
    </message>
    <message numerus="yes">
        <source>+%n peak evening(s)</source>
        <translation>
            <numerusform>还需 %n 个晚高峰</numerusform>
        </translation>
    </message>
    <message>
        <source>{rate} Mbit/s</source>
        <translation>{rate} Mbit/s</translation>
    </message>
</context>
<context>
    <name>ExportScreen</name>
    <message>
        <source>catalog skipped: {problem}</source>
        <translation>已跳过名录：{problem}</translation>
    </message>
    <message>
        <source>no measurements yet ({store} does not exist): the link-quality sheets are empty</source>
        <translation>尚无测量数据（{store} 不存在）：线路质量相关工作表为空</translation>
    </message>
    <message>
        <source>Save the workbook as</source>
        <translation>将工作簿另存为</translation>
    </message>
    <message>
        <source>Excel workbook (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <source>Folder for the csv files</source>
        <translation>CSV 文件的文件夹</translation>
    </message>
    <message>
        <source>Choose where to write the export.</source>
        <translation>请选择导出位置。</translation>
    </message>
    <message>
        <source>Writing {path}…</source>
        <translation>正在写入 {path}…</translation>
    </message>
    <message>
        <source>{count} csv files in {folder}</source>
        <translation>{folder} 中的 {count} 个 CSV 文件</translation>
    </message>
    <message>
        <source>Wrote {what} in {seconds:.1f} s: {regions} measured region(s).</source>
        <translation>已在 {seconds:.1f} 秒内写入 {what}：{regions} 个已测区域。</translation>
    </message>
    <message>
        <source>Wrote {what} in {seconds:.1f} s: {regions} measured region(s), {ranked} offerings ranked.</source>
        <translation>已在 {seconds:.1f} 秒内写入 {what}：{regions} 个已测区域，{ranked} 个产品已排名。</translation>
    </message>
    <message>
        <source>Sheets: {sheets}.</source>
        <translation>工作表：{sheets}。</translation>
    </message>
    <message>
        <source>Export written: {what}</source>
        <translation>导出完成：{what}</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>The comparison workbook for procurement, as `linkvet export` writes it: ranking and score breakdown (for the needs, weights and method on the Needs &amp; score screen), link quality at peak and off-peak hours per region, hour-of-day profiles, the GPU offerings, the sizing and the method. Peak windows and time zone come from the settings.</source>
        <translation>供采购使用的对比工作簿，与 `linkvet export` 生成的相同：排名与评分明细（依据“需求与评分”页面的需求、权重和方法）、各区域高峰与非高峰时段的线路质量、按小时分布、GPU 产品、容量估算以及方法说明。高峰时段和时区取自设置。</translation>
    </message>
    <message>
        <source>Excel workbook (.xlsx)</source>
        <translation>Excel 工作簿（.xlsx）</translation>
    </message>
    <message>
        <source>CSV files (one per sheet, in a folder)</source>
        <translation>CSV 文件（每个工作表一个，放在文件夹中）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Everything stored</source>
        <translation>全部已存数据</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>all vantage points</source>
        <translation>全部测量点</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Write to</source>
        <translation>写入到</translation>
    </message>
    <message>
        <source>Measurements</source>
        <translation>测量数据</translation>
    </message>
    <message>
        <source>Vantage point</source>
        <translation>测量点</translation>
    </message>
    <message>
        <source>Rank the catalog offerings for the needs on the Needs &amp;&amp; score screen</source>
        <translation>按“需求与评分”页面的需求对名录产品排名</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Open the workbook</source>
        <translation>打开工作簿</translation>
    </message>
</context>
<context>
    <name>HelpViewer</name>
    <message>
        <source>{page} — linkvet user guide</source>
        <translation>{page} — linkvet 用户指南</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前进</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>首页</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>linkvet user guide</source>
        <translation>linkvet 用户指南</translation>
    </message>
</context>
<context>
    <name>HomeScreen</name>
    <message>
        <source>The evaluation could not be read</source>
        <translation>无法读取评估</translation>
    </message>
    <message>
        <source>Next: {command}</source>
        <translation>下一步：{command}</translation>
    </message>
    <message>
        <source>{count} candidate(s) for {needs}; offices: {offices}; peak hours: {windows}. Hover a cell for what it says; click it for the next step.</source>
        <translation>{count} 个候选，用于 {needs}；办公室：{offices}；晚高峰：{windows}。鼠标悬停在单元格上查看详情；点击查看下一步。</translation>
    </message>
    <message>
        <source>70B dense, full fine-tune, ZeRO-3</source>
        <translation>70B 稠密模型，全参数微调，ZeRO-3</translation>
    </message>
    <message>
        <source>Evaluation {name} created.</source>
        <translation>已创建评估 {name}。</translation>
    </message>
    <message>
        <source>Remove the evaluation</source>
        <translation>删除评估</translation>
    </message>
    <message>
        <source>Remove the evaluation {name} from the store? Its measurements stay (other evaluations and the charts still use them).</source>
        <translation>从结果库中删除评估 {name}？其测量数据会保留（其他评估和图表仍在使用）。</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>New evaluation…</source>
        <translation>新建评估…</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Write the report…</source>
        <translation>撰写报告…</translation>
    </message>
    <message>
        <source>Open the example</source>
        <translation>打开示例</translation>
    </message>
    <message>
        <source>An evaluation is the shortlist your team decides on: the job, your offices, the candidate regions with their test addresses, and the peak hours. linkvet measures each candidate from your office, shows what is known and what is missing, and ranks them.

Start with New evaluation…, or open the example (three candidates at loopback addresses).</source>
        <translation>评估就是团队要做决定的候选清单：训练任务、你的办公室、带测试地址的候选区域，以及晚高峰时段。linkvet 从你的办公室测量每个候选，显示哪些已知、哪些缺失，并给出排名。

从“新建评估…”开始，或打开示例（三个使用环回地址的候选）。</translation>
    </message>
    <message>
        <source>Grey: missing · yellow: partial · green: done · red: contradicted (the measurements or the trial server refute a claim). Each cell&apos;s buttons fill it.</source>
        <translation>灰色：缺失 · 黄色：部分 · 绿色：完成 · 红色：已被否定（测量或试用服务器否定了某项宣称）。每个单元格的按钮用来补齐它。</translation>
    </message>
</context>
<context>
    <name>JobPage</name>
    <message>
        <source>A needs profile</source>
        <translation>需求配置文件</translation>
    </message>
    <message>
        <source>Needs profiles (*.toml)</source>
        <translation>需求配置 (*.toml)</translation>
    </message>
    <message>
        <source>The store has an evaluation {name} already.</source>
        <translation>结果库中已有名为 {name} 的评估。</translation>
    </message>
    <message>
        <source>The job</source>
        <translation>训练任务</translation>
    </message>
    <message>
        <source>Name the evaluation, and say what it is for: the training job decides what fits.</source>
        <translation>为评估命名，并说明它的用途：训练任务决定了什么才合适。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>a short name: lower case, digits, - and _ (e.g. q1-gpu)</source>
        <translation>简短名称：小写字母、数字、- 和 _（例如 q1-gpu）</translation>
    </message>
    <message>
        <source>The example job: a 70B model, full fine-tune, 32 GPUs</source>
        <translation>示例任务：70B 模型，全参数微调，32 块 GPU</translation>
    </message>
    <message>
        <source>A needs file:</source>
        <translation>需求配置文件：</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Describe the job here:</source>
        <translation>在这里描述任务：</translation>
    </message>
</context>
<context>
    <name>LineType</name>
    <message>
        <source>Standard</source>
        <translation>普通线路</translation>
    </message>
    <message>
        <source>Local</source>
        <translation>本地</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Probe</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Routes</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>服务商名录</translation>
    </message>
    <message>
        <source>Needs &amp; score</source>
        <translation>需求与评分</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Language not available</source>
        <translation>语言不可用</translation>
    </message>
    <message>
        <source>Not found: {path}</source>
        <translation>找不到：{path}</translation>
    </message>
    <message>
        <source>About linkvet</source>
        <translation>关于 linkvet</translation>
    </message>
    <message>
        <source>linkvet {version}

Measures the line from your office to GPU-hosting regions, above all at peak hours, and scores providers on the measured data.</source>
        <translation>linkvet {version}

测量从办公室到 GPU 托管区域的线路质量（尤其是晚高峰），并依据实测数据为服务商评分。</translation>
    </message>
    <message>
        <source>Store: {path}</source>
        <translation>结果库：{path}</translation>
    </message>
    <message>
        <source>linkvet — line and GPU vendor check</source>
        <translation>linkvet — 线路与 GPU 服务商评估</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Getting started</source>
        <translation>快速入门(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;User guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;About linkvet</source>
        <translation>关于 linkvet(&amp;A)</translation>
    </message>
    <message>
        <source>linkvet is measuring {evaluations} in the background. It can keep measuring after the window closes (the next window shows it and can stop it).</source>
        <translation>linkvet 正在后台测量 {evaluations}。窗口关闭后它可以继续测量（下次打开窗口时会显示它，并可以停止它）。</translation>
    </message>
    <message>
        <source>The Probe screen&apos;s scheduler runs inside the window: it stops with it.</source>
        <translation>探测页面的调度器运行在窗口内：窗口关闭时它也会停止。</translation>
    </message>
    <message>
        <source>Quit linkvet</source>
        <translation>退出 linkvet</translation>
    </message>
    <message>
        <source>Keep measuring</source>
        <translation>继续测量</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Stop measuring and quit</source>
        <translation>停止测量并退出</translation>
    </message>
</context>
<context>
    <name>MeasuringPanel</name>
    <message>
        <source>Starting the agent…</source>
        <translation>正在启动测量代理…</translation>
    </message>
    <message>
        <source>Measuring {evaluation} in the background (process {pid}); it goes on when the window closes.</source>
        <translation>正在后台测量 {evaluation}（进程 {pid}）；窗口关闭后仍会继续。</translation>
    </message>
    <message>
        <source>Stopping the agent (the round in flight may finish first)…</source>
        <translation>正在停止测量代理（进行中的一轮可能会先完成）…</translation>
    </message>
    <message>
        <source>Measuring not stopped</source>
        <translation>测量未停止</translation>
    </message>
    <message>
        <source>The agent did not end within 30 seconds; it may still be finishing a round.</source>
        <translation>测量代理在 30 秒内没有结束；它可能仍在完成一轮测量。</translation>
    </message>
    <message>
        <source>Measuring</source>
        <translation>测量</translation>
    </message>
    <message>
        <source>Install as my service</source>
        <translation>安装为我的服务</translation>
    </message>
    <message>
        <source>Measure {evaluation} as a service of your user account, started again after a restart?

It writes {file} and switches it on ({command}).</source>
        <translation>以你的用户账户的服务来测量 {evaluation}，并在重启后自动启动？

将写入 {file} 并启用它（{command}）。</translation>
    </message>
    <message>
        <source>Installed {file}. {note}</source>
        <translation>已安装 {file}。{note}</translation>
    </message>
    <message>
        <source>No evaluation open.</source>
        <translation>没有打开的评估。</translation>
    </message>
    <message>
        <source>Looking for the agent…</source>
        <translation>正在查找测量代理…</translation>
    </message>
    <message>
        <source>The store cannot be read: {reason}</source>
        <translation>无法读取结果库：{reason}</translation>
    </message>
    <message>
        <source>Measuring in the background (process {pid}, since {since}).</source>
        <translation>正在后台测量（进程 {pid}，自 {since} 起）。</translation>
    </message>
    <message>
        <source>Measured by process {pid} on {host} (started outside this window).</source>
        <translation>由 {host} 上的进程 {pid} 测量（在本窗口之外启动）。</translation>
    </message>
    <message>
        <source>The agent started {since} has ended; its log: {log}</source>
        <translation>{since} 启动的测量代理已结束；其日志：{log}</translation>
    </message>
    <message>
        <source>Not measuring. Start measuring: it goes on after the window closes.</source>
        <translation>未在测量。点击“开始测量”：窗口关闭后仍会继续。</translation>
    </message>
    <message>
        <source>Last round {time}.</source>
        <translation>最近一轮：{time}。</translation>
    </message>
    <message>
        <source>Next round {time}.</source>
        <translation>下一轮：{time}。</translation>
    </message>
    <message numerus="yes">
        <source>%n round(s) wait in the spool for the store.</source>
        <translation>
            <numerusform>暂存库中有 %n 轮等待写入结果库。</numerusform>
        </translation>
    </message>
    <message>
        <source>{office}: no agent has reported</source>
        <translation>{office}：尚无测量代理报告</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>尚无</translation>
    </message>
    <message>
        <source>measuring</source>
        <translation>正在测量</translation>
    </message>
    <message numerus="yes">
        <source>%n round(s) in its spool</source>
        <translation>
            <numerusform>其暂存库中有 %n 轮</numerusform>
        </translation>
    </message>
    <message>
        <source>silent since {time}</source>
        <translation>自 {time} 起无消息</translation>
    </message>
    <message>
        <source>{office}: {state}, last round {time} on {host}</source>
        <translation>{office}：{state}，最近一轮 {time}，在 {host} 上</translation>
    </message>
    <message>
        <source>Other offices&apos; agents: {agents}</source>
        <translation>其他办公室的测量代理：{agents}</translation>
    </message>
    <message>
        <source>This computer measures from</source>
        <translation>本机测量点</translation>
    </message>
    <message>
        <source>Start measuring</source>
        <translation>开始测量</translation>
    </message>
    <message>
        <source>Stop measuring</source>
        <translation>停止测量</translation>
    </message>
    <message>
        <source>Install as my service…</source>
        <translation>安装为我的服务…</translation>
    </message>
    <message>
        <source>Run the agent as a service of your user account (systemd, launchd or Task Scheduler), so that it measures after a restart too.</source>
        <translation>将测量代理作为你的用户账户的服务运行（systemd、launchd 或任务计划程序），重启后也会继续测量。</translation>
    </message>
</context>
<context>
    <name>NeedsForm</name>
    <message>
        <source>Also in this profile (not editable here, counted in sizing and scoring): {fields}</source>
        <translation>此配置另有以下字段（此处不可编辑，同样计入容量估算与评分）：{fields}</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Cluster, place and budget</source>
        <translation>集群、地点与预算</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Active parameters (MoE)</source>
        <translation>激活参数量（MoE）</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>训练方式</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Parallel strategy</source>
        <translation>并行策略</translation>
    </message>
    <message>
        <source>Tensor parallel</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <source>Pipeline parallel</source>
        <translation>流水线并行</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>Micro-batch per GPU</source>
        <translation>每卡微批大小</translation>
    </message>
    <message>
        <source>Tokens per step</source>
        <translation>每步 token 数</translation>
    </message>
    <message>
        <source>Target step time</source>
        <translation>目标每步时间</translation>
    </message>
    <message>
        <source>GPUs wanted</source>
        <translation>期望 GPU 数</translation>
    </message>
    <message>
        <source>Nodes wanted</source>
        <translation>期望节点数</translation>
    </message>
    <message>
        <source>Team works in</source>
        <translation>团队所在地</translation>
    </message>
    <message>
        <source>Training data is in</source>
        <translation>训练数据所在地</translation>
    </message>
    <message>
        <source>Vantage (office probe name)</source>
        <translation>测量点（办公室探测名称）</translation>
    </message>
    <message>
        <source>Budget per GPU-hour</source>
        <translation>每 GPU 小时预算</translation>
    </message>
    <message>
        <source>Budget per month</source>
        <translation>每月预算</translation>
    </message>
    <message>
        <source>Currency</source>
        <translation>货币</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>estimated</source>
        <translation>估算</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>not stated</source>
        <translation>未说明</translation>
    </message>
    <message>
        <source>any (as the probes recorded it)</source>
        <translation>任意（按探测记录）</translation>
    </message>
</context>
<context>
    <name>OfferingFields</name>
    <message>
        <source>Left empty: your fact is taken out of your catalogs on Save.</source>
        <translation>留空：保存时从我的名录中移除您填写的这个事实。</translation>
    </message>
    <message>
        <source>Left empty: what the catalog says stays (nothing is deleted).</source>
        <translation>留空：保留名录现有的值（不会删除任何内容）。</translation>
    </message>
    <message>
        <source>not stated by any source</source>
        <translation>没有任何来源说明</translation>
    </message>
    <message>
        <source>claimed</source>
        <translation>宣称</translation>
    </message>
    <message>
        <source>verified</source>
        <translation>已验证</translation>
    </message>
    <message>
        <source>contradicted</source>
        <translation>与实测不符</translation>
    </message>
    <message>
        <source>source not stated</source>
        <translation>来源未说明</translation>
    </message>
    <message>
        <source>derived: {source}</source>
        <translation>推算：{source}</translation>
    </message>
    <message>
        <source>as of {date}</source>
        <translation>截至 {date}</translation>
    </message>
    <message>
        <source>GPUs and the server</source>
        <translation>GPU 与服务器</translation>
    </message>
    <message>
        <source>Network between servers</source>
        <translation>服务器间网络</translation>
    </message>
    <message>
        <source>Storage</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>Operations</source>
        <translation>运维</translation>
    </message>
    <message>
        <source>Price and term</source>
        <translation>价格与租期</translation>
    </message>
    <message>
        <source>Capacity and regions</source>
        <translation>可租规模与区域</translation>
    </message>
    <message>
        <source>not stated</source>
        <translation>未说明</translation>
    </message>
</context>
<context>
    <name>OfferingForm</name>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message numerus="yes">
        <source>%n value(s) not valid: nothing is saved until they are.</source>
        <translation>
            <numerusform>%n 个值无效：改正之前不会保存任何内容。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing changed yet.</source>
        <translation>尚未更改任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n changed value(s), valid by the catalog&apos;s rules: Save writes them into {file}.</source>
        <translation>
            <numerusform>%n 个已更改的值符合名录规则：点击“保存”写入 {file}。</numerusform>
        </translation>
    </message>
    <message>
        <source>{message} (expected: {expected})</source>
        <translation>{message}（应为：{expected}）</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>{provider}/{offering} saved into {file}.</source>
        <translation>{provider}/{offering} 已保存到 {file}。</translation>
    </message>
    <message>
        <source>New offering</source>
        <translation>新建产品</translation>
    </message>
    <message>
        <source>Edit {provider}/{offering}</source>
        <translation>编辑 {provider}/{offering}</translation>
    </message>
    <message>
        <source>Only the values you change are saved, each with the source and date below, into your own catalog folder ({folder}); the bundled catalogs are never changed. An empty field means not stated (unknown).</source>
        <translation>只保存您更改的值，每个值都带上下面填写的来源和日期，写入您自己的名录文件夹（{folder}）；内置名录永远不会被修改。留空表示未说明（未知）。</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Offering id</source>
        <translation>产品 ID</translation>
    </message>
    <message>
        <source>e.g. gpu-h100-8x (lowercase letters, digits, . _ -)</source>
        <translation>例如 gpu-h100-8x（小写字母、数字、. _ -）</translation>
    </message>
    <message>
        <source>Source of what you change</source>
        <translation>所改内容的来源</translation>
    </message>
    <message>
        <source>Who said it, in what document: e.g. quote from Li Wei, sales, 2026-12-03</source>
        <translation>谁说的、出自什么文件：例如 李伟（销售）的报价，2026-12-03</translation>
    </message>
    <message>
        <source>As of</source>
        <translation>截至日期</translation>
    </message>
    <message>
        <source>YYYY-MM-DD (or YYYY-MM, YYYY)</source>
        <translation>YYYY-MM-DD（或 YYYY-MM、YYYY）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>OfficesPage</name>
    <message>
        <source>Your offices</source>
        <translation>你的办公室</translation>
    </message>
    <message>
        <source>Where the team works from: each office measures its own line.</source>
        <translation>团队在哪里办公：每个办公室测量自己的线路。</translation>
    </message>
    <message>
        <source>One row per office, with the carrier of its line (ct China Telecom, cu China Unicom, cm China Mobile). The worse office decides. Leave the table empty to measure from this computer only.</source>
        <translation>每行一个办公室，并注明其线路的运营商（ct 中国电信，cu 中国联通，cm 中国移动）。以较差的办公室为准。表格留空则只从本机测量。</translation>
    </message>
    <message>
        <source>Office</source>
        <translation>办公室</translation>
    </message>
    <message>
        <source>Carrier</source>
        <translation>运营商</translation>
    </message>
    <message>
        <source>Add an office</source>
        <translation>添加办公室</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
</context>
<context>
    <name>OfficesPanel</name>
    <message>
        <source>worst peak (+{spread:.0f} ms vs the best)</source>
        <translation>晚高峰最差（比最好的测量点高 {spread:.0f} ms）</translation>
    </message>
    <message>
        <source>worst peak</source>
        <translation>晚高峰最差</translation>
    </message>
    <message>
        <source>not traced</source>
        <translation>未追踪路由</translation>
    </message>
    <message>
        <source>{provider} / {region}: the route class differs by office ({offices})</source>
        <translation>{provider} / {region}：各办公室测得的线路类别不同（{offices}）</translation>
    </message>
    <message>
        <source>Each region measured from two or more vantage points (offices), side by side: p95 and loss in the peak hours, and the route class each office&apos;s traces measured.</source>
        <translation>从两个或更多测量点（办公室）测量的每个区域并列对比：晚高峰的 p95 与丢包率，以及各测量点路由追踪测得的线路类别。</translation>
    </message>
    <message>
        <source>Provider / region</source>
        <translation>服务商 / 区域</translation>
    </message>
    <message>
        <source>Vantage point</source>
        <translation>测量点</translation>
    </message>
    <message>
        <source>Peak p95 (ms)</source>
        <translation>晚高峰 p95（毫秒）</translation>
    </message>
    <message>
        <source>Peak loss</source>
        <translation>晚高峰丢包率</translation>
    </message>
    <message>
        <source>Measured route</source>
        <translation>实测路由</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Only one vantage point (office) in this period: nothing to compare. Measure the same targets from a second office (`linkvet schedule` with another vantage point, into the same store) to see them side by side here.</source>
        <translation>此时段内只有一个测量点（办公室）：没有可对比的数据。从第二个办公室测量同样的目标（用另一个测量点运行 `linkvet schedule`，写入同一个结果库），即可在此并列对比。</translation>
    </message>
</context>
<context>
    <name>PeakPage</name>
    <message>
        <source>name at least one peak window</source>
        <translation>请至少填写一个高峰时段</translation>
    </message>
    <message>
        <source>Peak hours</source>
        <translation>晚高峰</translation>
    </message>
    <message>
        <source>When the line is busiest for your offices: the hours that decide.</source>
        <translation>你的办公室线路最繁忙的时间：决定结果的时段。</translation>
    </message>
    <message>
        <source>Peak windows</source>
        <translation>高峰时段</translation>
    </message>
    <message>
        <source>One per line: HH:MM-HH:MM Zone/Name [days], e.g. 20:00-23:00 Asia/Shanghai. Inside them linkvet measures every minute, else every five.</source>
        <translation>每行一个：HH:MM-HH:MM 时区/名称 [星期]，例如 20:00-23:00 Asia/Shanghai。高峰时段内 linkvet 每分钟测量一次，其余时间每五分钟一次。</translation>
    </message>
    <message>
        <source>Start measuring from this computer now (it goes on after the window closes)</source>
        <translation>立即从本机开始测量（窗口关闭后仍会继续）</translation>
    </message>
</context>
<context>
    <name>ProbeListBook</name>
    <message>
        <source>Probe list not loaded</source>
        <translation>未能加载探测列表</translation>
    </message>
    <message>
        <source>{error}

The file was kept as {aside}; starting with an empty list.</source>
        <translation>{error}

原文件已保留为 {aside}；将以空列表开始。</translation>
    </message>
    <message>
        <source>loopback (this computer)</source>
        <translation>环回地址（本机）</translation>
    </message>
    <message>
        <source>custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>catalog</source>
        <translation>服务商名录</translation>
    </message>
    <message>
        <source>synthetic</source>
        <translation>合成数据</translation>
    </message>
    <message>
        <source>plan {name}</source>
        <translation>计划 {name}</translation>
    </message>
    <message>
        <source>Could not save the probe list to {path}: {error}</source>
        <translation>无法将探测列表保存到 {path}：{error}</translation>
    </message>
</context>
<context>
    <name>ProbeScreen</name>
    <message>
        <source>Nothing to probe: switch on targets on the Targets screen.</source>
        <translation>没有可探测的目标：请在“目标”页面勾选目标。</translation>
    </message>
    <message>
        <source>None of the targets can be measured with that method.</source>
        <translation>所选方式无法测量任何目标。</translation>
    </message>
    <message numerus="yes">
        <source>Probing %n target(s)…</source>
        <translation>
            <numerusform>正在探测 %n 个目标…</numerusform>
        </translation>
    </message>
    <message>
        <source>{seconds:.1f} s</source>
        <translation>{seconds:.1f} 秒</translation>
    </message>
    <message numerus="yes">
        <source>Measured %n target(s) in {seconds:.1f} s</source>
        <translation>
            <numerusform>已在 {seconds:.1f} 秒内测量 %n 个目标</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be measured (see the Status column)</source>
        <translation>
            <numerusform>%n 个无法测量（见“状态”列）</numerusform>
        </translation>
    </message>
    <message>
        <source>stored as round {round}</source>
        <translation>已保存为第 {round} 轮</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{summary}.</source>
        <translation>{summary}。</translation>
    </message>
    <message>
        <source>Results kept in the spool</source>
        <translation>结果已存入暂存库</translation>
    </message>
    <message>
        <source>The store did not take this run; it is kept in the spool and stored by the next run or scheduled round that reaches the store.
{error}</source>
        <translation>结果库没有接收这次测量；它已存入暂存库，下一次能写入结果库的测量或定时轮次会把它存入。
{error}</translation>
    </message>
    <message>
        <source>Results not stored</source>
        <translation>结果未保存</translation>
    </message>
    <message>
        <source>The measurements are shown but could not be saved:
{error}</source>
        <translation>测量结果已显示，但无法保存：
{error}</translation>
    </message>
    <message>
        <source>Probe stopped; nothing of this run was stored.</source>
        <translation>探测已停止；本次运行的数据均未保存。</translation>
    </message>
    <message>
        <source>Probe failed</source>
        <translation>探测失败</translation>
    </message>
    <message>
        <source>Probe</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>%v of %m attempts (%p%)</source>
        <translation>%v / %m 次尝试（%p%）</translation>
    </message>
    <message>
        <source>as each target says</source>
        <translation>按各目标自身设置</translation>
    </message>
    <message>
        <source>auto (10 icmp/tcp, 3 http, 1 download/iperf3/responsiveness)</source>
        <translation>自动（icmp/tcp 10 次，http 3 次，download/iperf3/responsiveness 1 次）</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Save the results in the store (for Charts and Export)</source>
        <translation>将结果保存到结果库（供图表和导出使用）</translation>
    </message>
    <message>
        <source>Time since Run now, including starting the probing process</source>
        <translation>自点击“立即运行”起的时间，含启动探测进程的时间</translation>
    </message>
    <message>
        <source>Run now</source>
        <translation>立即运行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>Interval</source>
        <translation>间隔</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>线路</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>Last ms</source>
        <translation>最近（毫秒）</translation>
    </message>
    <message>
        <source>Median ms</source>
        <translation>中位数（毫秒）</translation>
    </message>
    <message>
        <source>P95 ms</source>
        <translation>P95（毫秒）</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>丢包率</translation>
    </message>
    <message>
        <source>Jitter ms</source>
        <translation>抖动（毫秒）</translation>
    </message>
    <message>
        <source>Trend</source>
        <translation>趋势</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>丢失</translation>
    </message>
    <message>
        <source>RTT</source>
        <translation>RTT</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>Seconds since the run started</source>
        <translation>运行开始后的秒数</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>QuestionnaireExportDialog</name>
    <message>
        <source>A needs profile</source>
        <translation>需求配置文件</translation>
    </message>
    <message>
        <source>Needs profiles (*.toml)</source>
        <translation>需求配置文件 (*.toml)</translation>
    </message>
    <message>
        <source>Save the questionnaire as</source>
        <translation>问卷另存为</translation>
    </message>
    <message>
        <source>Excel workbooks (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <source>{file}: the questionnaire is an xlsx workbook: name it .xlsx</source>
        <translation>{file}：问卷是 xlsx 工作簿，文件名请以 .xlsx 结尾</translation>
    </message>
    <message>
        <source>{file}: the folder {folder} does not exist</source>
        <translation>{file}：文件夹 {folder} 不存在</translation>
    </message>
    <message>
        <source>no needs profile at {file}</source>
        <translation>{file} 处没有需求配置文件</translation>
    </message>
    <message>
        <source>Writing the questionnaire…</source>
        <translation>正在写入问卷…</translation>
    </message>
    <message>
        <source>Replace the file?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <source>{file} exists. Replace it with the new questionnaire?</source>
        <translation>{file} 已存在。用新的问卷替换它吗？</translation>
    </message>
    <message>
        <source>Wrote {file}: {count} questions about {offerings}. Send it to the vendor; import the answers with Questionnaire → Import…</source>
        <translation>已写入 {file}：关于 {offerings} 的 {count} 个问题。请发给服务商；收到回答后用“问卷 → 导入…”导入。</translation>
    </message>
    <message>
        <source>Export a questionnaire</source>
        <translation>导出问卷</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Offerings to ask about</source>
        <translation>要询问的产品</translation>
    </message>
    <message>
        <source>New offerings to ask about</source>
        <translation>要询问的新产品</translation>
    </message>
    <message>
        <source>Order the questions by</source>
        <translation>问题排序依据</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Save as</source>
        <translation>另存为</translation>
    </message>
    <message>
        <source>ids the catalog does not have yet, separated by commas</source>
        <translation>名录中尚无的 ID，用逗号分隔</translation>
    </message>
    <message>
        <source>no training needs (the questions in their own order)</source>
        <translation>不按训练需求（按问题本身的顺序）</translation>
    </message>
    <message>
        <source>the training needs of the Needs &amp; score screen</source>
        <translation>“需求与评分”页面的训练需求</translation>
    </message>
    <message>
        <source>a needs profile file</source>
        <translation>需求配置文件</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>QuestionnaireImportDialog</name>
    <message>
        <source>An answered questionnaire</source>
        <translation>已回答的问卷</translation>
    </message>
    <message>
        <source>Excel workbooks (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <source>The inputs changed: press Preview again before importing.</source>
        <translation>输入已更改：导入前请重新点击“预览”。</translation>
    </message>
    <message>
        <source>Reading the answers…</source>
        <translation>正在读取回答…</translation>
    </message>
    <message numerus="yes">
        <source>%n answer(s) not valid: nothing can be imported. Correct them in the workbook and preview again (or skip the invalid ones).</source>
        <translation>
            <numerusform>%n 个回答无效：无法导入。请在工作簿中改正后重新预览（或跳过无效回答）。</numerusform>
        </translation>
    </message>
    <message>
        <source>{answers} answers: {new} new facts, {same} the same as the catalog says, {conflicts} that contradict it (ticked: take the answer; unticked: keep what the catalog says). Nothing is written until you press Import.</source>
        <translation>{answers} 个回答：{new} 个新事实，{same} 个与名录一致，{conflicts} 个与名录冲突（勾选：采用回答；不勾选：保留名录现有的值）。点击“导入”之前不会写入任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n invalid answer(s) will be skipped (listed below).</source>
        <translation>
            <numerusform>将跳过 %n 个无效回答（见下表）。</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>{source} (as of {date})</source>
        <translation>{source}（截至 {date}）</translation>
    </message>
    <message>
        <source>take the answer</source>
        <translation>采用回答</translation>
    </message>
    <message>
        <source>new fact</source>
        <translation>新事实</translation>
    </message>
    <message>
        <source>same (source and date refreshed)</source>
        <translation>相同（更新来源和日期）</translation>
    </message>
    <message>
        <source>a verified fact stands</source>
        <translation>保留已验证的事实</translation>
    </message>
    <message>
        <source>source not stated</source>
        <translation>来源未说明</translation>
    </message>
    <message>
        <source>Writing the answers into your catalogs…</source>
        <translation>正在把回答写入我的名录…</translation>
    </message>
    <message>
        <source>{answers} answers written: {added} facts added, {changed} changed (earlier values kept in their history), {unchanged} unchanged, {kept} kept as the catalog says, in {file}.</source>
        <translation>已写入 {answers} 个回答：新增 {added} 个事实，更改 {changed} 个（旧值保留在历史中），{unchanged} 个未变，{kept} 个保留名录现有的值，文件 {file}。</translation>
    </message>
    <message>
        <source>Import an answered questionnaire</source>
        <translation>导入已回答的问卷</translation>
    </message>
    <message>
        <source>Workbook</source>
        <translation>工作簿</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Answered by</source>
        <translation>回答人</translation>
    </message>
    <message>
        <source>Answers as of</source>
        <translation>回答日期</translation>
    </message>
    <message>
        <source>empty: the workbook&apos;s “Answered by”</source>
        <translation>留空：使用工作簿中的“回答人”</translation>
    </message>
    <message>
        <source>empty: the workbook&apos;s answer date (YYYY-MM-DD)</source>
        <translation>留空：使用工作簿中的回答日期（YYYY-MM-DD）</translation>
    </message>
    <message>
        <source>Skip invalid answers (import the valid ones and list the rest)</source>
        <translation>跳过无效回答（导入有效回答并列出其余）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>{file}: {problem}</source>
        <translation>{file}：{problem}</translation>
    </message>
    <message>
        <source>The catalog says now</source>
        <translation>名录现有的值</translation>
    </message>
    <message>
        <source>The answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>Sheet</source>
        <translation>工作表</translation>
    </message>
    <message>
        <source>Row</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Given</source>
        <translation>填写的值</translation>
    </message>
    <message>
        <source>Expected</source>
        <translation>应为</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题说明</translation>
    </message>
</context>
<context>
    <name>ReportPanel</name>
    <message>
        <source>Writing {path}…</source>
        <translation>正在写入 {path}…</translation>
    </message>
    <message>
        <source>no candidate passes every gate</source>
        <translation>没有候选通过全部门槛项</translation>
    </message>
    <message>
        <source>recommends {candidate} (decided)</source>
        <translation>推荐 {candidate}（已确定）</translation>
    </message>
    <message>
        <source>recommends {candidate} (not decided yet)</source>
        <translation>推荐 {candidate}（尚未确定）</translation>
    </message>
    <message>
        <source>Wrote {path} in {seconds:.1f} s: {verdict}.</source>
        <translation>已写入 {path}，用时 {seconds:.1f} 秒：{verdict}。</translation>
    </message>
    <message>
        <source>Report written: {path}</source>
        <translation>报告已写入：{path}</translation>
    </message>
    <message>
        <source>Report failed</source>
        <translation>报告生成失败</translation>
    </message>
    <message>
        <source>Decision report</source>
        <translation>决策报告</translation>
    </message>
    <message>
        <source>PDF (A4)</source>
        <translation>PDF（A4）</translation>
    </message>
    <message>
        <source>HTML (one file)</source>
        <translation>HTML（单个文件）</translation>
    </message>
    <message>
        <source>no evaluation in the store</source>
        <translation>结果库中没有评估</translation>
    </message>
    <message>
        <source>Write the report</source>
        <translation>生成报告</translation>
    </message>
    <message>
        <source>Open the report</source>
        <translation>打开报告</translation>
    </message>
    <message>
        <source>An evaluation&apos;s decision for management, as `linkvet report` writes it: the recommendation, the candidates side by side, each one&apos;s line at the peak evenings, route, acceptance and answers, the time to move the data and the method.</source>
        <translation>给管理层的评估决策，与 `linkvet report` 生成的相同：推荐结果、候选并列对比、每个候选在晚高峰的线路、路由、验收与问卷答复、数据传输所需时间及方法说明。</translation>
    </message>
</context>
<context>
    <name>RouteHistoryPanel</name>
    <message>
        <source>{provider}/{region} ({count} traces)</source>
        <translation>{provider}/{region}（{count} 次追踪）</translation>
    </message>
    <message>
        <source>No traces stored for a region yet: trace a target labelled with a provider and region (Targets screen) with “Save the traces” on.</source>
        <translation>还没有保存任何区域的路由追踪：请追踪一个标注了服务商和区域的目标（在“目标”页面标注），并勾选“保存追踪结果”。</translation>
    </message>
    <message>
        <source>Route history not loaded</source>
        <translation>未能加载路由历史</translation>
    </message>
    <message numerus="yes">
        <source>%n trace(s) stored</source>
        <translation>
            <numerusform>已保存 %n 次追踪</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation>
            <numerusform>%n 次变化</numerusform>
        </translation>
    </message>
    <message>
        <source>RTT from {methods}</source>
        <translation>RTT 来自 {methods}</translation>
    </message>
    <message>
        <source>claim check: {evidence}</source>
        <translation>线路声明核对：{evidence}</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>Mon Tue Wed Thu Fri Sat Sun</source>
        <translation>周一 周二 周三 周四 周五 周六 周日</translation>
    </message>
    <message>
        <source>the line fell from {before} to {after}</source>
        <translation>线路从 {before} 降级为 {after}</translation>
    </message>
    <message>
        <source>the line rose from {before} to {after}</source>
        <translation>线路从 {before} 升级为 {after}</translation>
    </message>
    <message>
        <source>the line changed from {before} to {after}</source>
        <translation>线路从 {before} 变为 {after}</translation>
    </message>
    <message>
        <source>the hops changed; still {before}</source>
        <translation>路由跳点变了；仍是 {before}</translation>
    </message>
    <message>
        <source> (other hops)</source>
        <translation>（跳点也变了）</translation>
    </message>
    <message>
        <source>before: {before}
after: {after}</source>
        <translation>之前：{before}
之后：{after}</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Period</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>last 90 days</source>
        <translation>最近 90 天</translation>
    </message>
    <message>
        <source>everything</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>RTT (ms)</source>
        <translation>RTT（毫秒）</translation>
    </message>
    <message>
        <source>route</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>{before} → {after}</source>
        <translation>{before} → {after}</translation>
    </message>
    <message>
        <source>hops changed</source>
        <translation>跳点变化</translation>
    </message>
    <message>
        <source>Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec</source>
        <translation>1月 2月 3月 4月 5月 6月 7月 8月 9月 10月 11月 12月</translation>
    </message>
</context>
<context>
    <name>RouteVerdictView</name>
    <message>
        <source>hop {ttl}</source>
        <translation>第 {ttl} 跳</translation>
    </message>
    <message>
        <source>Evidence:</source>
        <translation>依据：</translation>
    </message>
    <message>
        <source>Doubts:</source>
        <translation>存疑之处：</translation>
    </message>
    <message>
        <source>&lt;b&gt;Error&lt;/b&gt;: {message}</source>
        <translation>&lt;b&gt;错误&lt;/b&gt;：{message}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Verdict: {line_class}&lt;/b&gt; — {explanation}</source>
        <translation>&lt;b&gt;判定：{line_class}&lt;/b&gt; — {explanation}</translation>
    </message>
    <message>
        <source>Rule: {rule} (source: {source})</source>
        <translation>规则：{rule}（来源：{source}）</translation>
    </message>
    <message>
        <source>Rule: {rule}</source>
        <translation>规则：{rule}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Over all traces&lt;/b&gt;: {summary}</source>
        <translation>&lt;b&gt;综合全部追踪&lt;/b&gt;：{summary}</translation>
    </message>
    <message>
        <source>Claim check</source>
        <translation>线路声明核对</translation>
    </message>
    <message>
        <source>Claim check over the region&apos;s stored traces</source>
        <translation>按该区域全部已保存追踪核对线路声明</translation>
    </message>
    <message>
        <source>agrees</source>
        <translation>相符</translation>
    </message>
    <message>
        <source>MISMATCH</source>
        <translation>不符</translation>
    </message>
    <message>
        <source>not checkable</source>
        <translation>无法核对</translation>
    </message>
    <message>
        <source>&lt;b&gt;{check} ({verdict})&lt;/b&gt;: {evidence}</source>
        <translation>&lt;b&gt;{check}（{verdict}）&lt;/b&gt;：{evidence}</translation>
    </message>
</context>
<context>
    <name>RoutesScreen</name>
    <message>
        <source>Cannot trace</source>
        <translation>无法追踪</translation>
    </message>
    <message numerus="yes">
        <source>Tracing %n target(s)…</source>
        <translation>
            <numerusform>正在追踪 %n 个目标…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n trace(s) done</source>
        <translation>
            <numerusform>已完成 %n 次追踪</numerusform>
        </translation>
    </message>
    <message>
        <source>Traces not stored</source>
        <translation>追踪结果未保存</translation>
    </message>
    <message>
        <source>stored</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>Trace stopped; nothing of it was stored.</source>
        <translation>追踪已停止；本次结果均未保存。</translation>
    </message>
    <message>
        <source>Trace failed</source>
        <translation>追踪失败</translation>
    </message>
    <message>
        <source>Routes</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation>协议</translation>
    </message>
    <message>
        <source>Probes per hop</source>
        <translation>每跳探测数</translation>
    </message>
    <message>
        <source>Traces</source>
        <translation>追踪次数</translation>
    </message>
    <message>
        <source>Max hops</source>
        <translation>最大跳数</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>Interval</source>
        <translation>间隔</translation>
    </message>
    <message>
        <source>Claimed line type</source>
        <translation>声明的线路类型</translation>
    </message>
    <message>
        <source>host name or address, or pick from the probe list</source>
        <translation>主机名或地址，或从探测列表中选择</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>as the target is labelled</source>
        <translation>按目标的标注</translation>
    </message>
    <message>
        <source>Save the traces in the store (for the history)</source>
        <translation>将追踪结果保存到结果库（用于历史）</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Hop</source>
        <translation>跳</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>丢包率</translation>
    </message>
    <message>
        <source>Sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>Last ms</source>
        <translation>最近 ms</translation>
    </message>
    <message>
        <source>Avg ms</source>
        <translation>平均 ms</translation>
    </message>
    <message>
        <source>Best ms</source>
        <translation>最好 ms</translation>
    </message>
    <message>
        <source>Worst ms</source>
        <translation>最差 ms</translation>
    </message>
    <message>
        <source>Trend</source>
        <translation>趋势</translation>
    </message>
    <message>
        <source>(destination)</source>
        <translation>（目的地）</translation>
    </message>
    <message>
        <source>also answered: {addresses}</source>
        <translation>也有应答：{addresses}</translation>
    </message>
</context>
<context>
    <name>SchedulerPanel</name>
    <message>
        <source>Choose a plan file</source>
        <translation>选择计划文件</translation>
    </message>
    <message>
        <source>Plan files (*.toml)</source>
        <translation>计划文件 (*.toml)</translation>
    </message>
    <message>
        <source>the probe list has no targets switched on</source>
        <translation>探测列表中没有启用的目标</translation>
    </message>
    <message>
        <source>Scheduler not started</source>
        <translation>调度器未启动</translation>
    </message>
    <message>
        <source>Scheduler started: plan {plan}, {count} targets.</source>
        <translation>调度器已启动：计划 {plan}，共 {count} 个目标。</translation>
    </message>
    <message>
        <source>Stopping (the round in flight may finish first)…</source>
        <translation>正在停止（进行中的一轮可能先完成）…</translation>
    </message>
    <message>
        <source>Running {plan}: {rounds} round(s) stored; next round at {time}.</source>
        <translation>正在运行 {plan}：已保存 {rounds} 轮；下一轮于 {time}。</translation>
    </message>
    <message>
        <source>Scheduler stopped after {rounds} stored round(s).</source>
        <translation>调度器已停止，共保存 {rounds} 轮。</translation>
    </message>
    <message>
        <source>Scheduler stopped</source>
        <translation>调度器已停止</translation>
    </message>
    <message>
        <source>Scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <source>the probe list (saved as gui-plan.toml in the data folder)</source>
        <translation>探测列表（在数据文件夹中保存为 gui-plan.toml）</translation>
    </message>
    <message>
        <source>Plan file…</source>
        <translation>计划文件…</translation>
    </message>
    <message>
        <source>every</source>
        <translation>每</translation>
    </message>
    <message>
        <source>at peak every</source>
        <translation>高峰时每</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Start scheduler</source>
        <translation>启动调度器</translation>
    </message>
    <message>
        <source>Stop scheduler</source>
        <translation>停止调度器</translation>
    </message>
    <message>
        <source>Measures on a cadence, denser inside the peak windows, until stopped; every round is stored.</source>
        <translation>按固定周期测量，高峰时段更密集，直到停止；每一轮都会保存。</translation>
    </message>
</context>
<context>
    <name>ScoreScreen</name>
    <message>
        <source>◂ Fold the needs away</source>
        <translation>◂ 收起需求</translation>
    </message>
    <message>
        <source>▸ Training needs and weights</source>
        <translation>▸ 训练需求与权重</translation>
    </message>
    <message>
        <source>Load a needs profile</source>
        <translation>加载需求配置</translation>
    </message>
    <message>
        <source>Needs profiles (*.toml)</source>
        <translation>需求配置 (*.toml)</translation>
    </message>
    <message>
        <source>Needs profile not loaded</source>
        <translation>需求配置未加载</translation>
    </message>
    <message>
        <source>Measured line quality not read: {error}</source>
        <translation>未能读取实测线路质量：{error}</translation>
    </message>
    <message numerus="yes">
        <source>%n catalog file(s) skipped (see the Catalog screen).</source>
        <translation>
            <numerusform>已跳过 %n 个名录文件（见“服务商名录”页面）。</numerusform>
        </translation>
    </message>
    <message>
        <source>All weights are zero: move at least one slider up.</source>
        <translation>所有权重均为零：请至少调高一个滑块。</translation>
    </message>
    <message>
        <source>Needs &amp; score</source>
        <translation>需求与评分</translation>
    </message>
    <message>
        <source>Training needs</source>
        <translation>训练需求</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Load a needs file…</source>
        <translation>加载需求文件…</translation>
    </message>
    <message>
        <source>Example: 70B full fine-tune</source>
        <translation>示例：70B 全参数微调</translation>
    </message>
    <message>
        <source>Show or fold away the training needs and the weights</source>
        <translation>显示或收起训练需求与权重</translation>
    </message>
</context>
<context>
    <name>Scorecard</name>
    <message numerus="yes">
        <source>Line quality measured for %n region(s).</source>
        <translation>
            <numerusform>已实测 %n 个区域的线路质量。</numerusform>
        </translation>
    </message>
    <message>
        <source>Note: {note}.</source>
        <translation>注意：{note}。</translation>
    </message>
    <message>
        <source>no first place</source>
        <translation>没有第 1 名</translation>
    </message>
    <message>
        <source>the first place holds when any weight moves ±20 %</source>
        <translation>任一权重变动 ±20% 时第 1 名不变</translation>
    </message>
    <message>
        <source>the first place changes when a weight moves ±20 % (Sensitivity tab)</source>
        <translation>某个权重变动 ±20% 时第 1 名会改变（见“敏感性”页）</translation>
    </message>
    <message>
        <source>{total} candidates (offering × region), {passing} pass every gate · ranked in {ms:.0f} ms by {method}, ordered by {order} · {holds}</source>
        <translation>共 {total} 个候选（产品 × 区域），{passing} 个通过全部门槛 · 按{method}排名，用时 {ms:.0f} 毫秒，排序依据：{order} · {holds}</translation>
    </message>
    <message>
        <source>Only those passing every gate</source>
        <translation>仅显示通过全部门槛的</translation>
    </message>
    <message>
        <source>Breakdown</source>
        <translation>明细</translation>
    </message>
    <message>
        <source>In words</source>
        <translation>文字说明</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>TOPSIS ↓</source>
        <translation>TOPSIS ↓</translation>
    </message>
    <message>
        <source>Score ↓</source>
        <translation>得分 ↓</translation>
    </message>
    <message>
        <source>At worst ↓</source>
        <translation>最差情况 ↓</translation>
    </message>
    <message>
        <source>Score</source>
        <translation>得分</translation>
    </message>
    <message>
        <source>Gates</source>
        <translation>门槛</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Offering</source>
        <translation>产品</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>$/GPU-h</source>
        <translation>$/GPU·时</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Sensitivity</source>
        <translation>敏感性</translation>
    </message>
    <message>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>pass (unchecked: {gates})</source>
        <translation>通过（未核实：{gates}）</translation>
    </message>
    <message>
        <source>fail: {gates}</source>
        <translation>未通过：{gates}</translation>
    </message>
    <message>
        <source>not stated</source>
        <translation>未说明</translation>
    </message>
    <message>
        <source>{gpus} GPUs / {nodes} nodes</source>
        <translation>{gpus} 卡 / {nodes} 节点</translation>
    </message>
    <message>
        <source>Criterion</source>
        <translation>评分项</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Counts</source>
        <translation>计入</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>gate</source>
        <translation>门槛</translation>
    </message>
    <message>
        <source>weighted</source>
        <translation>加权</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>fail</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>不适用</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>One window per line: HH:MM-HH:MM Zone/Name [days], e.g. 20:00-23:00 Asia/Shanghai</source>
        <translation>每行一个时段：HH:MM-HH:MM 时区名 [星期]，例如 20:00-23:00 Asia/Shanghai</translation>
    </message>
    <message>
        <source>Team mode: a PostgreSQL store the offices share, instead of the data folder&apos;s SQLite file. Leave empty for the file. The password comes from ~/.pgpass (PGPASSFILE), never the URL.</source>
        <translation>团队模式：各办公室共用的 PostgreSQL 结果库，代替数据文件夹中的 SQLite 文件。留空则用文件。密码取自 ~/.pgpass（PGPASSFILE），不写在 URL 里。</translation>
    </message>
    <message>
        <source>Peak windows</source>
        <translation>高峰时段</translation>
    </message>
    <message>
        <source>Charts&apos; time zone</source>
        <translation>图表时区</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Shared store (URL)</source>
        <translation>共享结果库（URL）</translation>
    </message>
    <message>
        <source>This run&apos;s store is {store} (from {source}); the store set here counts when linkvet starts without it.</source>
        <translation>本次运行的结果库是 {store}（来自 {source}）；这里设置的结果库在 linkvet 不带它启动时才生效。</translation>
    </message>
    <message>
        <source>The open evaluation {name} has its own peak windows ({windows}): they count while it is open. The ones here count when no evaluation is open.</source>
        <translation>已打开的评估 {name} 有自己的高峰时段（{windows}）：评估打开期间以它为准。这里的高峰时段在没有打开评估时生效。</translation>
    </message>
    <message>
        <source>Unknown time zone {zone!r}: pick an IANA name such as Asia/Shanghai.</source>
        <translation>未知时区 {zone!r}：请选择 IANA 时区名，例如 Asia/Shanghai。</translation>
    </message>
    <message>
        <source>Choose a data folder.</source>
        <translation>请选择数据文件夹。</translation>
    </message>
    <message>
        <source>The shared store is a postgresql:// URL; leave it empty for the file.</source>
        <translation>共享结果库须是 postgresql:// URL；留空则用文件。</translation>
    </message>
    <message>
        <source>Put the password in ~/.pgpass (or the file PGPASSFILE names), not in the URL.</source>
        <translation>请把密码写在 ~/.pgpass（或 PGPASSFILE 指定的文件）中，不要写在 URL 里。</translation>
    </message>
    <message>
        <source>peak window {number}: {reason}</source>
        <translation>第 {number} 个高峰时段：{reason}</translation>
    </message>
</context>
<context>
    <name>SizingPanel</name>
    <message>
        <source>Fix the highlighted field to see the sizing.</source>
        <translation>请修正标出的字段以查看容量估算。</translation>
    </message>
    <message>
        <source>Weights alone: {weights:,.1f} GB · model states before sharding: {states:,.1f} GB</source>
        <translation>仅权重：{weights:,.1f} GB · 切分前模型状态：{states:,.1f} GB</translation>
    </message>
    <message>
        <source>On {gpu}: does not fit at any GPU count with this strategy.</source>
        <translation>在 {gpu} 上：此策略下任何 GPU 数量都放不下。</translation>
    </message>
    <message>
        <source>On {gpu}: fits from {min} GPU(s); planned {planned} = {nodes} node(s) of {per_node} ({span})</source>
        <translation>在 {gpu} 上：至少 {min} 张 GPU 可放下；计划 {planned} 张 = {nodes} 个节点 × {per_node} 张（{span}）</translation>
    </message>
    <message>
        <source>spans nodes</source>
        <translation>跨节点</translation>
    </message>
    <message>
        <source>one node</source>
        <translation>单节点</translation>
    </message>
    <message>
        <source>Memory per GPU: {total:.1f} GB of {usable:.1f} usable (weights {w:.1f}, gradients {g:.1f}, optimizer {o:.1f}, activations {a:.1f})</source>
        <translation>每卡显存：{total:.1f} GB / 可用 {usable:.1f} GB（权重 {w:.1f}，梯度 {g:.1f}，优化器 {o:.1f}，激活 {a:.1f}）</translation>
    </message>
    <message>
        <source>Gradient sync per step: {gb:,.1f} GB over each node&apos;s inter-node links</source>
        <translation>每步梯度同步：每个节点的节点间链路传输 {gb:,.1f} GB</translation>
    </message>
    <message>
        <source>Bandwidth needed between nodes: {rate:,.0f} Gbit/s per node (step {step:.1f} s)</source>
        <translation>节点间所需带宽：每节点 {rate:,.0f} Gbit/s（每步 {step:.1f} 秒）</translation>
    </message>
    <message>
        <source>No inter-node traffic: the job fits in one node.</source>
        <translation>无节点间流量：任务可在单节点内完成。</translation>
    </message>
    <message>
        <source>Sizing (live)</source>
        <translation>容量估算（实时）</translation>
    </message>
    <message>
        <source>On</source>
        <translation>基于</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>每节点 GPU 数</translation>
    </message>
</context>
<context>
    <name>TargetDialog</name>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>automatic (host: icmp, host:port: tcp, URL: http)</source>
        <translation>自动（主机：icmp，主机:端口：tcp，URL：http）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>host, address, host:port or http(s):// URL</source>
        <translation>主机名、地址、主机:端口 或 http(s):// URL</translation>
    </message>
    <message>
        <source>shown in tables and charts (default: the address)</source>
        <translation>在表格和图表中显示的名称（默认：地址）</translation>
    </message>
    <message>
        <source>catalog provider id, e.g. raksmart</source>
        <translation>名录中的服务商 ID，例如 raksmart</translation>
    </message>
    <message>
        <source>catalog region id, e.g. los-angeles</source>
        <translation>名录中的区域 ID，例如 los-angeles</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Claimed line type</source>
        <translation>宣称的线路类型</translation>
    </message>
</context>
<context>
    <name>TargetsScreen</name>
    <message>
        <source>That target is already on the list.</source>
        <translation>该目标已在列表中。</translation>
    </message>
    <message numerus="yes">
        <source>%n target(s) added to the probe list.</source>
        <translation>
            <numerusform>已将 %n 个目标加入探测列表。</numerusform>
        </translation>
    </message>
    <message>
        <source>Catalogs not loaded</source>
        <translation>名录未加载</translation>
    </message>
    <message>
        <source>Plan not imported</source>
        <translation>计划未导入</translation>
    </message>
    <message numerus="yes">
        <source>Imported plan {plan}: %n new target(s).</source>
        <translation>
            <numerusform>已导入计划 {plan}：新增 %n 个目标。</numerusform>
        </translation>
    </message>
    <message>
        <source>no targets switched on</source>
        <translation>没有启用的目标</translation>
    </message>
    <message>
        <source>Plan not saved</source>
        <translation>计划未保存</translation>
    </message>
    <message>
        <source>Saved {count} targets as {path}: run it with linkvet schedule --plan {path}</source>
        <translation>已将 {count} 个目标保存为 {path}：可用 linkvet schedule --plan {path} 运行</translation>
    </message>
    <message>
        <source>Import a plan file</source>
        <translation>导入计划文件</translation>
    </message>
    <message>
        <source>Plan files (*.toml)</source>
        <translation>计划文件 (*.toml)</translation>
    </message>
    <message>
        <source>Save the probe list as a plan</source>
        <translation>将探测列表保存为计划</translation>
    </message>
    <message>
        <source>{on} of {total} targets switched on for the next run</source>
        <translation>下次运行将探测 {total} 个目标中的 {on} 个</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>The probe list: what the Probe screen measures. Tick the targets to include; label each with its provider, region and the line type the vendor claims, so measurements join the catalog.</source>
        <translation>探测列表：即“探测”页面要测量的目标。勾选要包含的目标；为每个目标标注服务商、区域以及服务商宣称的线路类型，以便测量结果与名录关联。</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>From the catalogs…</source>
        <translation>从名录添加…</translation>
    </message>
    <message>
        <source>Import plan…</source>
        <translation>导入计划…</translation>
    </message>
    <message>
        <source>Save as plan…</source>
        <translation>保存为计划…</translation>
    </message>
    <message>
        <source>Switch all on</source>
        <translation>全部启用</translation>
    </message>
    <message>
        <source>Switch all off</source>
        <translation>全部停用</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>区域</translation>
    </message>
    <message>
        <source>Line type</source>
        <translation>线路类型</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
</context>
<context>
    <name>WeightsPanel</name>
    <message>
        <source>Ranking method</source>
        <translation>排名方法</translation>
    </message>
    <message>
        <source>weighted sum</source>
        <translation>加权求和</translation>
    </message>
    <message>
        <source>TOPSIS</source>
        <translation>TOPSIS</translation>
    </message>
    <message>
        <source>Back to the checklist&apos;s weights</source>
        <translation>恢复检查表默认权重</translation>
    </message>
</context>
<context>
    <name>Workers</name>
    <message>
        <source>tracing</source>
        <translation>路由追踪</translation>
    </message>
    <message>
        <source>measuring</source>
        <translation>测量</translation>
    </message>
    <message>
        <source>could not start the {activity} process: {reason}</source>
        <translation>无法启动{activity}进程：{reason}</translation>
    </message>
    <message>
        <source>the {activity} process ended unexpectedly: {reason}</source>
        <translation>{activity}进程意外结束：{reason}</translation>
    </message>
    <message>
        <source>no message</source>
        <translation>没有消息</translation>
    </message>
    <message>
        <source>probing</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>could not start the scheduler process: {reason}</source>
        <translation>无法启动调度器进程：{reason}</translation>
    </message>
    <message>
        <source>the scheduler process ended unexpectedly: {reason}</source>
        <translation>调度器进程意外结束：{reason}</translation>
    </message>
</context>
</TS>
