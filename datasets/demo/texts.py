# Texts written for the neardup demo corpus (original work of the neardup
# authors; the events, people and sites are invented). Each article is a list
# of paragraphs; each paragraph a string of sentences.

ZH_NEWS = [
    ("江城地铁五号线今日开通试运营", [
        "本报讯 经过四年建设，江城地铁五号线今天上午九时正式开通试运营。这条线路全长三十二公里，设车站二十四座，连接城市东部新区和西部老城。",
        "据地铁公司介绍，五号线采用六节编组列车，高峰时段行车间隔为四分钟。试运营期间，首班车六时发出，末班车二十二时三十分发出。",
        "不少市民一早就来到车站体验。家住东湖小区的李女士说，过去上班要换乘两次公交，现在坐地铁只需四十分钟。",
        "地铁公司表示，将根据客流情况逐步缩短行车间隔，并在年底前完成沿线公交接驳线路的调整。",
    ]),
    ("全省春季植树造林面积创新高", [
        "记者从省林业局获悉，今年春季全省共完成植树造林一百二十万亩，比去年同期增长百分之十五，创历史新高。",
        "今年的造林工作重点放在水土流失严重的北部山区。各地采用乡土树种，提高了苗木成活率，部分县市成活率达到百分之九十以上。",
        "省林业局负责人表示，下一步将加强新造林地的管护，落实管护责任，防止出现边造林边毁林的现象。",
        "据了解，全省森林覆盖率已由十年前的百分之三十一提高到百分之三十八。",
    ]),
    ("青山县农民合作社带动千户增收", [
        "在青山县，一家由三十户农民发起的茶叶合作社，如今已发展成为带动一千多户茶农增收的龙头企业。",
        "合作社理事长王建国介绍，合作社统一收购鲜叶、统一加工、统一销售，茶农每斤鲜叶的收入比过去提高了两元。",
        "去年合作社销售收入达到八千万元，社员人均增收四千六百元。合作社还建起了电商平台，产品销往全国二十多个省份。",
        "县农业农村局表示，将总结推广这一模式，支持更多合作社做大做强。",
    ]),
    ("市第一医院开设夜间门诊方便上班族", [
        "为方便上班族就医，市第一医院从下周一起开设夜间门诊，每天十八时至二十一时接诊。",
        "夜间门诊首批开设内科、外科、儿科、皮肤科和口腔科五个科室，均由主治医师以上职称的医生坐诊。",
        "医院门诊部主任张丽说，医院此前做过问卷调查，近七成受访者表示白天很难请假看病。",
        "夜间门诊同步开放挂号、缴费、检验和取药窗口，患者也可以通过手机预约。",
    ]),
    ("我国科研团队研制出新型储能电池", [
        "近日，东海大学材料学院科研团队研制出一种新型钠离子储能电池，能量密度比同类产品提高约百分之二十。",
        "团队负责人陈教授介绍，钠资源储量丰富、价格低廉，钠离子电池有望在大规模储能领域替代部分锂电池。",
        "实验数据显示，这种电池在充放电三千次后，容量仍能保持在百分之九十以上，并且在零下二十摄氏度时能正常工作。",
        "目前，该成果已申请多项发明专利，团队正与企业合作开展中试生产。",
    ]),
    ("暴雨致多地交通受阻 有关部门全力抢险", [
        "受强降雨影响，昨天我省南部多个县市出现内涝，部分国道和省道交通一度中断。",
        "气象部门监测显示，过去二十四小时内，南部地区普遍降雨一百毫米以上，最大降雨量出现在河口镇，达二百六十毫米。",
        "灾情发生后，交通、应急等部门连夜组织抢险，调集大型机械清理塌方，截至今天中午已恢复通行路段十二处。",
        "气象台预计，未来三天南部地区仍有中到大雨，提醒公众减少外出，注意防范山洪和地质灾害。",
    ]),
    ("老旧小区改造让居民生活更舒心", [
        "今年以来，本市启动第二批老旧小区改造，涉及八十六个小区、两万三千多户居民。",
        "改造内容包括更换供水管网、加装电梯、增设停车位和健身场地。在建设路社区，六栋楼已经装上了电梯。",
        "七十五岁的赵大爷住在五楼，他高兴地说，以前上下楼要歇好几次，现在出门买菜方便多了。",
        "市住建局表示，改造坚持居民自愿原则，方案由居民共同商议决定，预计年底前全部完工。",
    ]),
    ("第十届国际图书博览会开幕", [
        "第十届国际图书博览会今天在国际会展中心开幕，来自四十多个国家和地区的一千二百家出版机构参展。",
        "本届博览会展出图书三十万种，举办新书发布、版权洽谈、作家见面会等活动五百多场。",
        "主办方介绍，今年首次设立数字出版展区，集中展示有声读物、电子书和在线教育产品。",
        "博览会将持续五天，期间向公众免费开放，市民可凭身份证预约入场。",
    ]),
    ("高校毕业生就业服务月活动启动", [
        "为帮助高校毕业生顺利就业，省人社厅今天启动就业服务月活动，将举办各类招聘会二百余场。",
        "活动期间，全省将提供就业岗位十五万个，其中制造业、信息技术和现代服务业岗位占六成以上。",
        "人社部门还将为困难家庭毕业生提供一对一帮扶，发放求职创业补贴，并开展职业技能培训。",
        "省人社厅有关负责人表示，今年全省高校毕业生预计达四十二万人，就业工作任务依然繁重。",
    ]),
    ("古城墙修缮工程顺利完工", [
        "历时两年的古城墙修缮工程日前顺利完工，修缮后的南门城楼重新向游客开放。",
        "这段城墙始建于明代，全长一点八公里。由于年久失修，部分墙体出现开裂和坍塌。",
        "文物部门按照修旧如旧的原则，采用传统工艺和材料进行加固，最大限度保留了历史原貌。",
        "工程负责人说，施工中还发现了一批明清时期的城砖铭文，为研究古城历史提供了新的实物资料。",
    ]),
]

ZH_PROSE = [
    ("故乡的老槐树", [
        "故乡的村口有一棵老槐树，据说已经活了三百多年。树干粗得要三个人才能合抱，树皮上布满了深深的裂纹。",
        "小时候，每到夏天，村里的老人都爱坐在树下乘凉，摇着蒲扇讲古。我们这些孩子就在树下追逐打闹，累了便躺在凉席上看树叶间漏下的阳光。",
        "后来我离开故乡去城里读书，再后来在外地工作，回家的次数越来越少。每次回去，老槐树总是静静地站在村口，好像在等什么人。",
        "去年秋天母亲打来电话，说老槐树被雷劈掉了一根大枝。我心里空落落的，仿佛自己身上也少了什么。",
    ]),
    ("雨夜读书", [
        "窗外下着小雨，雨点打在芭蕉叶上，发出细碎的声响。这样的夜晚，最适合泡一杯清茶，读几页闲书。",
        "我读书向来没有计划，随手拿起一本，翻到哪里就读到哪里。有时读到会心处，便停下来，听一会儿雨声。",
        "古人说，书犹药也，善读之可以医愚。我倒不敢有这样的奢望，只觉得在雨夜里读书，心会慢慢静下来。",
        "夜深了，雨还没有停。合上书，灯光下的茶已经凉了，而心里却有一种说不出的暖意。",
    ]),
    ("父亲的自行车", [
        "父亲有一辆老式的二八自行车，是他年轻时用三个月的工资买的。车身是黑色的，车把上的电镀早已斑驳。",
        "我上小学的时候，父亲每天骑车送我上学。我坐在前面的横梁上，听他讲路边每一棵树、每一户人家的故事。",
        "后来家里买了电动车，又买了汽车，那辆自行车就一直放在楼道里，落满了灰尘。父亲却舍不得卖掉，隔些日子就去擦一擦。",
        "如今父亲老了，骑不动车了。有一天我帮他把自行车推到楼下，他扶着车把站了很久，什么话也没有说。",
    ]),
    ("山居小记", [
        "去年夏天，我在山里借住了一个月。住处是一座旧农舍，屋后是竹林，屋前有一条清澈的小溪。",
        "每天清晨，我都被鸟鸣声叫醒。推开木窗，山间的雾气还没有散去，远处的山峰若隐若现。",
        "白天我沿着溪水散步，看山民采茶、砍竹、晒谷。他们的日子过得很慢，却也很踏实。",
        "离开的那天，房东大娘送我一包自己炒的新茶。回到城里以后，每次泡开那茶，我都仿佛又闻到了山里的气息。",
    ]),
    ("冬日的菜市场", [
        "冬天的清晨，天还没有大亮，菜市场里已经热闹起来了。卖菜的摊主们呵着白气，把一筐筐新鲜的蔬菜摆上摊位。",
        "我喜欢逛菜市场，喜欢那种扑面而来的烟火气。卖豆腐的大姐嗓门最大，卖鱼的师傅手脚最快，卖菜的老人总要多送你一把葱。",
        "在这里，人们讨价还价，也拉着家常。谁家的孩子考上了大学，谁家的老人住院了，大家都知道。",
        "城市越来越大，超市越开越多，可我还是愿意早起，走进这片热气腾腾的菜市场。",
    ]),
    ("母亲的手擀面", [
        "母亲做的手擀面，是我吃过最好吃的面。和面、揉面、擀面、切面，每一道工序她都做得一丝不苟。",
        "小时候家里穷，一年到头难得吃一次白面。只有在过生日的时候，母亲才会擀一碗长长的面条，卧上一个荷包蛋。",
        "后来我到外地读书，每次放假回家，母亲都会早早地和好面，等我进门就下锅。",
        "如今我也学会了擀面，可无论怎么做，总觉得少了一点母亲的味道。",
    ]),
]

ZH_UNIQUE = [
    ("市图书馆推出夜间自习室", [
        "市图书馆从本月起推出夜间自习室服务，每天开放至二十三时，可容纳二百人同时自习。",
        "自习室提供免费无线网络和充电插座，读者可通过微信公众号提前预约座位。图书馆表示，开放一个月后将根据使用情况调整开放时间。",
    ]),
    ("春运首日铁路客流平稳", [
        "今年春运首日，全省铁路共发送旅客三十二万人次，客流总体平稳有序。",
        "铁路部门加开临时列车十八对，并在主要车站增设人工售票窗口和志愿者服务台，帮助老年旅客购票乘车。",
    ]),
    ("邻居家的猫", [
        "邻居家养了一只橘猫，胖乎乎的，整天趴在阳台上晒太阳。",
        "它似乎对谁都不太在意，只有邻居家的小女孩放学回来时，它才会懒洋洋地站起来，跳下阳台去迎接。",
    ]),
    ("秋天的银杏路", [
        "学校后门有一条银杏路，每到深秋，满树金黄，风一吹，叶子便纷纷落下，铺满整条小路。",
        "很多人专程赶来拍照，而我最喜欢在傍晚时分独自走过那里，听脚下的落叶沙沙作响。",
    ]),
]

ZH_BRIEFS = [
    "本市今年新增公共停车位三千个，主要分布在医院、学校和商圈周边。",
    "省气象台发布高温黄色预警，预计未来三天最高气温将达三十八摄氏度。",
    "东湖公园荷花进入盛花期，公园延长开放时间至晚上十点。",
    "市消防支队开展高层建筑灭火救援演练，检验多部门联合作战能力。",
    "全市中小学暑期托管服务报名开始，每个学校设立不少于两个托管班。",
    "本市首条智慧公交线路开通，乘客可在站台电子屏查看车辆实时位置。",
    "市场监管部门抽检月饼二百批次，合格率为百分之九十九点五。",
    "城北污水处理厂扩建工程完工，日处理能力提高到二十万吨。",
    "江城马拉松赛将于十一月举行，报名人数已超过四万人。",
    "全市启动秋冬季大气污染防治攻坚行动，重点管控工地扬尘。",
    "市博物馆推出青铜器特展，展出文物一百二十余件。",
    "本市新建三处口袋公园，方便周边居民休闲健身。",
    "省农科院培育出耐旱小麦新品种，亩产提高百分之八。",
    "市民热线十二月受理诉求五万件，办结率达百分之九十六。",
    "西山隧道实施夜间封闭施工，过往车辆请提前绕行。",
    "本市发放第二批消费券，总额五千万元，覆盖餐饮和零售。",
    "市红十字会组织无偿献血活动，当天有三百多名市民参与。",
    "长江大桥主体结构检测完成，各项指标符合设计要求。",
    "全市社区食堂增至一百二十家，为老年人提供优惠餐食。",
    "省体育局公布冬季全民健身活动安排，共有四十项赛事。",
]

EN_NEWS = [
    ("City council approves new cycle lanes", [
        "The city council voted on Tuesday to build twenty kilometres of protected cycle lanes over the next two years, the largest expansion of the network in a decade.",
        "The plan links the university district to the riverside business park and closes several gaps that cyclists have complained about for years. Parking on two main streets will be reduced to make room for the lanes.",
        "Council member Ruth Alvarez said the vote reflected a clear change in how residents travel. Bike counts on the existing lanes have doubled since the pandemic, she said.",
        "Local shop owners were divided. Some welcomed the extra foot traffic, while others warned that losing parking spaces could drive customers away.",
    ]),
    ("Regional airport to add three new routes", [
        "Northfield Regional Airport will add direct flights to three cities from next spring, the airport's operator announced on Monday.",
        "The new routes will be served by a low-cost carrier that plans to base two aircraft at the airport. Tickets go on sale next month, with fares starting at forty-nine pounds.",
        "Airport chief executive Daniel Okafor said passenger numbers had recovered to pre-pandemic levels and the terminal had room to grow without new construction.",
        "Residents near the runway have asked for limits on night flights. The operator said no flights would be scheduled between eleven at night and six in the morning.",
    ]),
    ("Heatwave prompts water restrictions", [
        "Water companies across the south have introduced hosepipe bans after the driest July on record left reservoirs at their lowest levels in thirty years.",
        "The restrictions forbid using hosepipes to water gardens, wash cars or fill swimming pools. Breaking the rules can lead to fines of up to one thousand pounds.",
        "Forecasters expect temperatures to stay above thirty degrees for at least another week. Farmers say crops are already suffering and some have begun selling livestock early.",
        "Environmental groups urged the companies to fix leaking pipes, which lose roughly a fifth of all treated water before it reaches homes.",
    ]),
    ("Local school wins national robotics prize", [
        "A team of six students from Hillcrest Secondary School has won first place at the national youth robotics championship.",
        "Their robot, designed to sort recyclable waste, impressed judges by identifying plastic, glass and paper with more than ninety percent accuracy.",
        "Team captain Priya Nair, sixteen, said the students spent every lunch break for five months building and testing the machine.",
        "The team will represent the country at the international finals in Singapore in November. The school is raising money to cover travel costs.",
    ]),
    ("Hospital opens new cancer treatment centre", [
        "The General Hospital opened a new cancer treatment centre on Friday, bringing radiotherapy and chemotherapy services under one roof.",
        "The forty million pound building includes two radiotherapy machines, thirty treatment chairs and a garden designed for patients and their families.",
        "Until now, many patients had to travel more than an hour to the nearest radiotherapy unit. Doctors said the shorter journeys would make a real difference to people in treatment.",
        "The centre was paid for partly by a public fundraising campaign that collected six million pounds in three years.",
    ]),
    ("Factory closure puts 400 jobs at risk", [
        "Workers at the Brantwood paper mill were told on Wednesday that the factory will close at the end of the year, putting four hundred jobs at risk.",
        "The owners blamed rising energy costs and falling demand for printed paper. The mill has operated in the town for more than a century.",
        "Union representatives said they would push for talks on keeping the site open and called on the government to help find a buyer.",
        "The local mayor described the news as a heavy blow and promised support for affected families, including retraining programmes.",
    ]),
    ("Museum returns ancient artefacts", [
        "The National Museum has agreed to return twelve bronze artefacts to the country they were taken from more than a century ago.",
        "The objects, which include ceremonial masks and figures, were removed during a military expedition and later sold to collectors.",
        "The museum's director said a two-year review had found no legal or ethical basis for keeping them. The handover will take place in the spring.",
        "Campaigners welcomed the decision but said hundreds of similar objects remained in museums across Europe.",
    ]),
    ("Storm leaves thousands without power", [
        "Thousands of homes were left without electricity on Sunday after a storm brought winds of more than ninety miles per hour to the coast.",
        "Fallen trees blocked roads and railway lines, and several ferry crossings were cancelled. One man was taken to hospital after a tree fell on his car.",
        "Engineers worked through the night to restore power. By Monday morning, the network operator said supplies had been reconnected to most customers.",
        "The weather service has issued another warning for strong winds on Wednesday and advised people to avoid coastal paths.",
    ]),
    ("Library service goes fine-free", [
        "The county library service has abolished fines for overdue books, saying the charges kept the poorest readers away.",
        "Officials said fines brought in less than two percent of the library budget but caused thousands of members to stop borrowing.",
        "Since a trial ended fines in three branches last year, returns of overdue books have actually increased, according to library staff.",
        "Readers who still owe fines will have them cancelled automatically, and lost cards can be replaced free of charge until the end of the month.",
    ]),
    ("Farmers' market celebrates twenty years", [
        "The riverside farmers' market celebrated its twentieth anniversary on Saturday with music, cooking demonstrations and a record number of stalls.",
        "The market began with eight stalls in a car park and now hosts more than sixty producers every weekend, selling everything from cheese to cut flowers.",
        "Founder Margaret Hale said the market had helped small farms survive by letting them sell directly to customers at fair prices.",
        "The council has agreed to extend the market's lease for another ten years and to improve lighting for winter evenings.",
    ]),
]

EN_PROSE = [
    ("The last train home", [
        "I used to take the last train home on Friday nights, when the carriages were almost empty and the city slid past the windows like a film with the sound turned off.",
        "There was always the same old man in the corner seat, reading a paperback with a cracked spine. We never spoke, but we nodded to each other as if we shared a secret.",
        "One winter he was not there, and the next week he was not there either. I found myself looking for him at every station, as if he might step on at the last moment.",
        "I still do not know his name. But whenever I catch a late train, I leave the corner seat empty, just in case.",
    ]),
    ("My grandmother's garden", [
        "My grandmother grew more in her small back garden than most people grow on a farm. Beans climbed the fence, tomatoes leaned on bamboo canes, and herbs filled every gap between the stones.",
        "She worked in the garden every morning, even in the rain, wearing the same faded blue coat. She said plants could tell when you were in a hurry.",
        "As a child I thought the garden was a kind of magic. Later I understood that it was patience, repeated every day for fifty years.",
        "The house was sold after she died. I drove past it last summer, and the garden had become a lawn, neat and green and completely silent.",
    ]),
    ("Learning to swim at forty", [
        "I learned to swim when I was forty, in a public pool full of children who moved through the water like fish.",
        "For the first three weeks I clung to the side and practised breathing, feeling foolish every time a six-year-old overtook me.",
        "Then one Tuesday evening I let go of the wall and simply kept going. I reached the other end without stopping, and I laughed so hard that I swallowed half the pool.",
        "It is strange how the things we fear for most of our lives can turn out to be ordinary once we finally try them.",
    ]),
    ("A walk in the fog", [
        "The fog came in from the sea early in the morning, and by the time I set out the village had disappeared.",
        "I walked along the cliff path with only the sound of the waves to guide me. Every few steps a gorse bush or a fence post appeared out of the grey and then was gone.",
        "Walking in fog makes you notice small things: the wet smell of grass, the cry of a gull somewhere above, your own breath.",
        "When the sun finally broke through, the whole coast appeared at once, and I felt almost sorry to see it.",
    ]),
    ("The piano in the hall", [
        "There was an old piano in the hall of my school that nobody was allowed to play. Its lid was locked, and the key hung in the head teacher's office.",
        "Once a year, on the last day of the summer term, the music teacher unlocked it and played a single piece while we sat on the floor in silence.",
        "I never learned what the piece was called. Years later I heard it on the radio in a taxi and had to ask the driver to pull over.",
        "Some memories wait a long time to be finished, and then a stranger's radio does it for you.",
    ]),
    ("Winter mornings", [
        "In winter my father got up before anyone else to light the stove. I would lie in bed listening to the rattle of the grate and the scrape of the coal shovel.",
        "By the time I came downstairs the kitchen was warm and the kettle was singing. He never said much in the mornings, but he always had a cup of tea ready for me.",
        "Now I have a house with central heating and a kettle that switches itself off. The mornings are easier and much quieter.",
        "Sometimes, on the coldest days, I get up early just to sit in the dark kitchen and wait for the warmth to come.",
    ]),
]

EN_UNIQUE = [
    ("Bridge repairs to close road for a week", [
        "Mill Road will be closed for seven days from Monday while engineers repair the bridge over the canal.",
        "Buses will be diverted through the town centre, and a footpath will remain open for pedestrians and cyclists throughout the works.",
    ]),
    ("Volunteers clean up the beach", [
        "More than two hundred volunteers collected over a tonne of rubbish from the town beach on Sunday morning.",
        "Organisers said plastic bottles and fishing nets made up most of the waste, and they plan to hold another clean-up in the autumn.",
    ]),
    ("The neighbour's dog", [
        "Our neighbour's dog barks at the postman every morning, as if the poor man were a dangerous stranger.",
        "Yet when the postman is ill and someone new comes, the dog says nothing at all. I think he simply likes the conversation.",
    ]),
    ("An old map", [
        "I found an old map of the town in a second-hand bookshop, drawn before the railway arrived.",
        "Half the streets I know are missing, and fields stand where the supermarket is now. I pinned it above my desk as a reminder that everything changes.",
    ]),
]

EN_BRIEFS = [
    "The town swimming pool will reopen next week after a three-month refurbishment.",
    "Police are appealing for witnesses after a van was stolen from an industrial estate on Thursday night.",
    "A new bus route linking the hospital and the railway station starts on Monday.",
    "The county council has approved plans for two hundred new homes on the edge of the village.",
    "Tickets for the summer music festival sold out within three hours of going on sale.",
    "Road resurfacing on the high street will take place overnight to reduce disruption.",
    "The local football club has appointed a former player as its new manager.",
    "A rare bird spotted at the nature reserve has attracted hundreds of visitors.",
    "The university will offer free evening courses in computing for adults this autumn.",
    "Residents are invited to comment on plans for a new skate park by the end of the month.",
    "The annual charity run raised more than fifty thousand pounds for the children's hospice.",
    "Repairs to the church roof are complete after a two-year fundraising campaign.",
    "A pop-up vaccination clinic will open in the shopping centre on Saturday.",
    "The ferry service to the island will run a reduced timetable during the winter months.",
    "Local businesses can apply for grants to install solar panels until the end of March.",
    "The theatre has announced a season of new plays by writers from the region.",
    "A water main burst in the town centre, closing two streets for most of the day.",
    "The primary school has planted an orchard with twenty apple and pear trees.",
    "Volunteers are needed to help run the community food bank on weekday mornings.",
    "The railway station car park will charge higher fees from the start of next month.",
]
